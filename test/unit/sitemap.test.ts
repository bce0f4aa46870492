import { describe, expect, it } from 'vitest';
import { parseLastmod, parseSitemap, robotsSitemaps } from '../../src/core/sitemap.js';

describe('parseSitemap', () => {
  it('reads a urlset with lastmod, entities, CDATA and a namespace prefix', () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<sm:urlset xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sm:url><sm:loc>http://a.test/p?x=1&amp;y=2</sm:loc><sm:lastmod>2024-05-01</sm:lastmod></sm:url>
  <sm:url><sm:loc><![CDATA[http://a.test/cdata]]></sm:loc><sm:lastmod>2024-05-01T10:00:00+02:00</sm:lastmod></sm:url>
  <sm:url><sm:loc>  http://a.test/no-lastmod  </sm:loc><sm:priority>0.5</sm:priority></sm:url>
  <sm:url><sm:lastmod>2024-01-01</sm:lastmod></sm:url>
</sm:urlset>`;
    const doc = parseSitemap(xml);
    expect(doc.kind).toBe('urlset');
    expect(doc.truncated).toBe(false);
    expect(doc.entries).toEqual([
      { loc: 'http://a.test/p?x=1&y=2', lastmod: Date.UTC(2024, 4, 1) },
      { loc: 'http://a.test/cdata', lastmod: Date.UTC(2024, 4, 1, 8) },
      { loc: 'http://a.test/no-lastmod' },
    ]);
  });

  it('reads a sitemap index', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
      <sitemap><loc>http://a.test/s1.xml</loc></sitemap>
      <sitemap><loc>http://a.test/s2.xml.gz</loc><lastmod>2023-12-31T23:59Z</lastmod></sitemap>
    </sitemapindex>`;
    const doc = parseSitemap(xml);
    expect(doc.kind).toBe('index');
    expect(doc.entries.map((e) => e.loc)).toEqual(['http://a.test/s1.xml', 'http://a.test/s2.xml.gz']);
    expect(doc.entries[1]!.lastmod).toBe(Date.UTC(2023, 11, 31, 23, 59));
  });

  it('stops at maxEntries and says so', () => {
    const urls = Array.from({ length: 10 }, (_, i) => `<url><loc>http://a.test/${i}</loc></url>`).join('');
    const doc = parseSitemap(`<urlset>${urls}</urlset>`, 4);
    expect(doc.entries.map((e) => e.loc)).toEqual([0, 1, 2, 3].map((i) => `http://a.test/${i}`));
    expect(doc.truncated).toBe(true);
  });

  it('reads the plain-text form, one URL per line', () => {
    const doc = parseSitemap('http://a.test/1\r\n\nnot a url\nhttps://a.test/2\n');
    expect(doc).toEqual({
      kind: 'text',
      entries: [{ loc: 'http://a.test/1' }, { loc: 'https://a.test/2' }],
      truncated: false,
    });
  });

  it('calls anything else unknown without throwing', () => {
    for (const junk of ['', '<html><body>hi</body></html>', '<urlset><url><loc>', '\u0000\uffff<<<']) {
      const doc = parseSitemap(junk);
      expect(doc.entries.length === 0 || doc.kind !== 'unknown').toBe(true);
      expect(['urlset', 'unknown']).toContain(doc.kind);
    }
    expect(parseSitemap('<html><body>hi</body></html>').kind).toBe('unknown');
  });
});

describe('parseLastmod', () => {
  it('accepts W3C datetimes and rejects the rest', () => {
    expect(parseLastmod('2024-05')).toBe(Date.UTC(2024, 4, 1));
    expect(parseLastmod(' 2024-05-01T00:00:00.500Z ')).toBe(Date.UTC(2024, 4, 1, 0, 0, 0, 500));
    for (const bad of ['yesterday', '2024-13-45', '1714521600', ''])
      expect(parseLastmod(bad)).toBeUndefined();
  });
});

describe('robotsSitemaps', () => {
  it('finds Sitemap lines anywhere, any case', () => {
    const txt =
      'User-agent: *\nDisallow: /x\nsitemap: http://a.test/s.xml\n  SITEMAP:http://a.test/t.xml.gz # c\n';
    expect(robotsSitemaps(txt)).toEqual(['http://a.test/s.xml', 'http://a.test/t.xml.gz']);
  });
});
