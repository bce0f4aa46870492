/**
 * What a page's URLs are stripped of before the URL parser reads them: HTML's ASCII whitespace
 * (TAB, LF, FF, CR, SPACE) only, never what JavaScript's trim() also takes (VT, U+00A0, U+2003,
 * U+3000, U+FEFF...). Checked on the WHATWG URL test data (urltestdata.json), as written and
 * wrapped in each of those characters, and on pages through both HTML extractors.
 */
import { describe, expect, it } from 'vitest';
import { CheerioExtractor } from '../../src/adapters/parse/cheerio-extractor.js';
import { documentBase, resolveLink } from '../../src/adapters/parse/field-values.js';
import { StreamingExtractor } from '../../src/adapters/parse/streaming-extractor.js';
import { isAsciiWhitespace, stripAsciiWhitespace } from '../../src/core/ascii-whitespace.js';
import type { ExtractionRules } from '../../src/core/rules.js';
import { NODE_URL_DEVIATIONS, nodeAgrees, nodeHref, urlTestCases } from '../helpers/urltestdata.js';

/** Every character String.prototype.trim() strips that is not ASCII whitespace. */
const TRIM_ONLY = [
  '\u000b',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];

const noFragment = (href: string | undefined) => (href === undefined ? undefined : href.split('#')[0]);
const httpOnly = (href: string | undefined) =>
  href !== undefined && /^https?:/.test(href) ? href : undefined;

describe('stripAsciiWhitespace', () => {
  it('strips TAB, LF, FF, CR and SPACE at both ends, nothing else', () => {
    expect(stripAsciiWhitespace(' \t\n\f\r/x \t\n\f\r')).toBe('/x');
    expect(stripAsciiWhitespace('/a b')).toBe('/a b');
    expect(stripAsciiWhitespace(' \t ')).toBe('');
    for (const c of TRIM_ONLY) {
      expect(`${c}/x${c}`.trim()).toBe('/x'); // what trim() did
      expect(stripAsciiWhitespace(`${c}/x${c}`)).toBe(`${c}/x${c}`);
      expect(isAsciiWhitespace(c.charCodeAt(0))).toBe(false);
    }
    // Exactly the five, among every BMP code unit.
    let count = 0;
    for (let c = 0; c < 0x10000; c++) if (isAsciiWhitespace(c)) count++;
    expect(count).toBe(5);
  });
});

describe('resolveLink on urltestdata.json', () => {
  // Cases relative to an http(s) base: what a link on a page is.
  const cases = urlTestCases().filter((c) => c.base !== null && /^https?:/.test(c.base));

  it('gives the URL the standard gives for the input, fragment dropped (only http(s), never the page itself)', () => {
    let checked = 0;
    for (const c of cases) {
      if (!nodeAgrees(c)) {
        expect(NODE_URL_DEVIATIONS.has(c.input), c.input).toBe(true);
        continue;
      }
      const stripped = stripAsciiWhitespace(c.input);
      // crawld's own rules: an empty href and a bare #fragment are the page itself.
      const self = stripped === '' || stripped.startsWith('#');
      const expected = self || c.failure ? undefined : noFragment(httpOnly(c.href));
      expect(resolveLink(c.input, new URL(c.base!)), JSON.stringify(c.input)).toBe(expected);
      checked++;
    }
    expect(checked).toBeGreaterThan(150);
  });

  it('wrapped in U+00A0, U+2003, U+3000, U+FEFF, VT...: the URL the parser gives for the unstripped input', () => {
    let checked = 0;
    let differs = 0;
    for (const c of cases) {
      if (c.failure || !nodeAgrees(c)) continue;
      const base = new URL(c.base!);
      for (const ch of TRIM_ONLY) {
        const input = `${ch}${c.input}${ch}`;
        const expected = noFragment(httpOnly(nodeHref({ input, base: c.base })));
        const got = resolveLink(input, base);
        expect(got, JSON.stringify(input)).toBe(expected);
        // trim() would have given the input's own URL: count where that is another URL.
        if (got !== resolveLink(c.input, base)) differs++;
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(2500);
    // Most of them: VT is a C0 control the parser strips itself; the others are kept.
    expect(differs).toBeGreaterThan(checked / 2);
  });

  it('hand-checked: the characters are percent-encoded where they stand', () => {
    const base = new URL('http://shop.test/');
    expect(resolveLink('\u00a0/x', base)).toBe('http://shop.test/%C2%A0/x');
    expect(resolveLink('/x\u2003', base)).toBe('http://shop.test/x%E2%80%83');
    expect(resolveLink('\u3000/x', base)).toBe('http://shop.test/%E3%80%80/x');
    expect(resolveLink('/x?q=\ufeff', base)).toBe('http://shop.test/x?q=%EF%BB%BF');
    // Not an absolute URL: a path beginning with U+00A0 (a browser follows it the same way).
    expect(resolveLink('\u00a0https://other.test/', base)).toBe('http://shop.test/%C2%A0https://other.test/');
    expect(resolveLink('\u00a0#top', base)).toBe('http://shop.test/%C2%A0');
    // ASCII whitespace goes, inside too where the URL parser drops TAB and LF.
    expect(resolveLink(' \t\n\f\r/y\r\n ', base)).toBe('http://shop.test/y');
    expect(resolveLink(' #top ', base)).toBeUndefined();
    expect(resolveLink('\f', base)).toBeUndefined();
    expect(documentBase('http://shop.test/a/b', '\u00a0/base/')?.href).toBe(
      'http://shop.test/a/%C2%A0/base/',
    );
    expect(documentBase('http://shop.test/a/b', ' /base/\n')?.href).toBe('http://shop.test/base/');
  });
});

describe('hrefs with non-ASCII spaces, through both extractors', () => {
  const all: ExtractionRules = { fields: {}, follow: [], followAllLinks: { priority: 10 } };
  const page = (head: string, body: string) =>
    Buffer.from(`<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`);
  const extract = (body: Buffer) => {
    const input = { url: 'http://shop.test/dir/page.html', contentType: 'text/html', body };
    const dom = new CheerioExtractor(all, { streaming: 'never' }).extract(input);
    const stream = new StreamingExtractor(all).extract(input);
    expect(stream).toEqual(dom);
    return dom;
  };

  it('links, <base href> and rel=canonical keep U+00A0 (also as &nbsp;), U+2003, U+3000 and U+FEFF', () => {
    const r = extract(
      page(
        '<link rel="canonical" href="\u00a0/c">',
        '<a href="\u00a0/nbsp">1</a><a href="&nbsp;/entity">2</a><a href="/em\u2003">3</a>' +
          '<a href="\u3000ideo">4</a><a href="\ufeff/bom">5</a><a href=" \t\n/ascii \r\n">6</a>' +
          '<iframe src="\u00a0frame"></iframe>',
      ),
    );
    expect(r.links.map((l) => l.url)).toEqual([
      'http://shop.test/dir/%C2%A0/nbsp',
      'http://shop.test/dir/%C2%A0/entity',
      'http://shop.test/em%E2%80%83',
      'http://shop.test/dir/%E3%80%80ideo',
      'http://shop.test/dir/%EF%BB%BF/bom',
      'http://shop.test/ascii',
      'http://shop.test/dir/%C2%A0frame',
    ]);
    expect(r.canonicalUrl).toBe('http://shop.test/dir/%C2%A0/c');
    const based = extract(page('<base href="\u00a0/b/">', '<a href="x">x</a>'));
    expect(based.links.map((l) => l.url)).toEqual(['http://shop.test/dir/%C2%A0/b/x']);
  });

  it('rel is split on ASCII whitespace: "\\u00a0canonical" names no canonical URL', () => {
    expect(extract(page('<link rel="\u00a0canonical" href="/c">', '')).canonicalUrl).toBeUndefined();
    expect(extract(page('<link rel="\tCanonical\n" href="/c">', '')).canonicalUrl).toBe('http://shop.test/c');
    expect(extract(page('<link rel="alternate canonical" href="/c">', '')).canonicalUrl).toBe(
      'http://shop.test/c',
    );
  });
});
