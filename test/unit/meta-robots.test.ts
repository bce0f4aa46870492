import { describe, expect, it } from 'vitest';
import { CheerioExtractor } from '../../src/adapters/parse/cheerio-extractor.js';
import { pageDirectives, parseMetaRobots, parseXRobotsTag } from '../../src/core/meta-robots.js';
import { DEFAULT_EXTRACTION } from '../../src/core/rules.js';

describe('meta robots and X-Robots-Tag directives', () => {
  it('meta content: comma-separated, any case and spacing, none = noindex + nofollow, unknown ignored', () => {
    expect(parseMetaRobots('nofollow')).toEqual({ noindex: false, nofollow: true });
    expect(parseMetaRobots(' NoIndex ,  NOFOLLOW ')).toEqual({ noindex: true, nofollow: true });
    expect(parseMetaRobots('none')).toEqual({ noindex: true, nofollow: true });
    expect(parseMetaRobots('noarchive, max-snippet:20, index, follow')).toEqual({
      noindex: false,
      nofollow: false,
    });
    expect(parseMetaRobots('')).toEqual({ noindex: false, nofollow: false });
    // A word containing a directive is not that directive.
    expect(parseMetaRobots('nofollowing, noindexed')).toEqual({ noindex: false, nofollow: false });
  });

  it('X-Robots-Tag: without a prefix for every bot; a TOKEN: prefix for that bot only, until the next prefix', () => {
    expect(parseXRobotsTag('noindex', 'crawld')).toEqual({ noindex: true, nofollow: false });
    expect(parseXRobotsTag('crawld: nofollow', 'crawld')).toEqual({ noindex: false, nofollow: true });
    expect(parseXRobotsTag('CrawlD: none', 'crawld')).toEqual({ noindex: true, nofollow: true });
    expect(parseXRobotsTag('googlebot: noindex, nofollow', 'crawld')).toEqual({
      noindex: false,
      nofollow: false,
    });
    // Two headers joined by the fetcher: the other bot's directives stay with it.
    expect(parseXRobotsTag('otherbot: noindex, nofollow, crawld: nofollow', 'crawld')).toEqual({
      noindex: false,
      nofollow: true,
    });
    // Valued directives are not bot names.
    expect(parseXRobotsTag('unavailable_after: 25 Jun 2010 15:00:00 PST, noindex', 'crawld')).toEqual({
      noindex: true,
      nofollow: false,
    });
    expect(parseXRobotsTag('max-snippet: 20, nofollow', 'crawld')).toEqual({
      noindex: false,
      nofollow: true,
    });
  });

  it('combines meta tags and the header', () => {
    expect(pageDirectives(['noindex'], 'nofollow', 'crawld')).toEqual({ noindex: true, nofollow: true });
    expect(pageDirectives([], undefined, 'crawld')).toEqual({ noindex: false, nofollow: false });
  });
});

describe('extractors report robots meta tags and the canonical URL', () => {
  const page = (head: string) =>
    Buffer.from(`<html><head>${head}</head><body><h1>t</h1><a href="/next">n</a></body></html>`);
  const input = (head: string) => ({
    url: 'http://site.test/dir/page?x=1',
    contentType: 'text/html',
    body: page(head),
    robotsNames: ['robots', 'crawld'],
  });
  const streaming = new CheerioExtractor(DEFAULT_EXTRACTION);
  const dom = new CheerioExtractor(DEFAULT_EXTRACTION, { streaming: 'never' });

  it.each([
    ['streaming', streaming],
    ['cheerio', dom],
  ])('%s', (_name, ex) => {
    expect(ex.streaming).toBe(_name === 'streaming');
    const e = ex.extract(
      input(
        '<META NAME="Robots" CONTENT="noindex"><meta name="CRAWLD" content="nofollow">' +
          '<meta name="googlebot" content="none"><meta name="description" content="d">' +
          '<link rel="stylesheet" href="/s.css"><link rel="Canonical" href="../canon?a=1#f"><link rel="canonical" href="/second">',
      ),
    );
    expect(e.robotsMeta).toEqual(['noindex', 'nofollow']);
    expect(e.canonicalUrl).toBe('http://site.test/canon?a=1');
    // With <base href>, the canonical resolves against it.
    const b = ex.extract(
      input('<base href="http://other.test/x/"><link rel="alternate canonical" href="c">'),
    );
    expect(b.canonicalUrl).toBe('http://other.test/x/c');
    expect(b.robotsMeta).toBeUndefined();
    // Without robotsNames (robots: { meta: false }): no robots tags read.
    expect(
      ex.extract({ ...input('<meta name="robots" content="none">'), robotsNames: [] }).robotsMeta,
    ).toBeUndefined();
  });
});
