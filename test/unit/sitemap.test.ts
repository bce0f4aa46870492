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

  it("strips a location of XML's white space only: U+00A0, U+3000 and U+FEFF are the URL's own characters", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc>\n\t http://a.test/plain \r\n</loc></url>
  <url><loc>http://a.test/nbsp\u00a0</loc><xhtml:link rel=" alternate " hreflang="de" href=" http://a.test/de&#x3000;"/></url>
  <url><loc>&#xA0;http://a.test/lead</loc></url>
  <url><loc>http://a.test/bom&#xFEFF;</loc></url>
</urlset>`;
    expect(parseSitemap(xml).entries).toEqual([
      { loc: 'http://a.test/plain' },
      { loc: 'http://a.test/nbsp\u00a0', alternates: ['http://a.test/de\u3000'] },
      // Not an absolute URL (the seeder counts it out of scope), as the URL parser reads it.
      { loc: '\u00a0http://a.test/lead' },
      { loc: 'http://a.test/bom\ufeff' },
    ]);
    const atom = `<feed xmlns="http://www.w3.org/2005/Atom"><entry><link rel="\u00a0alternate" href="http://a.test/x"/><link href="\thttp://a.test/y\u2003 "/></entry></feed>`;
    // rel "\u00a0alternate" is no alternate link; the next one is (no rel), its href stripped of ASCII white space.
    expect(parseSitemap(atom).entries).toEqual([{ loc: 'http://a.test/y\u2003' }]);
  });

  it('plain text after a byte order mark; a line stripped of ASCII white space only', () => {
    const doc = parseSitemap('\ufeff http://a.test/1 \r\n\u00a0http://a.test/2\n\thttp://a.test/3\u3000\n');
    expect(doc.entries).toEqual([{ loc: 'http://a.test/1' }, { loc: 'http://a.test/3\u3000' }]);
    expect(parseSitemap('\ufeff<urlset><url><loc>http://a.test/x</loc></url></urlset>').kind).toBe('urlset');
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

  it("white space around the field is robots.txt's (ASCII, VT included), not U+00A0", () => {
    const txt = 'Sitemap:\u00a0http://a.test/nbsp.xml\n\v Sitemap :\thttp://a.test/vt.xml\u3000\n';
    expect(robotsSitemaps(txt)).toEqual(['\u00a0http://a.test/nbsp.xml', 'http://a.test/vt.xml\u3000']);
  });
});

describe('parseSitemap: extensions, alternates and feeds', () => {
  it("image, video and news extensions and unknown namespaces never change a <url>'s location", () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
        xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"
        xmlns:foo="http://foo.test/ns">
  <url>
    <loc>
      http://a.test/u/1?a=1&amp;b=2
    </loc>
    <image:image><image:loc>http://a.test/img/1.jpg</image:loc></image:image>
    <image:image><image:loc>http://a.test/img/2.jpg</image:loc><image:caption>c</image:caption></image:image>
  </url>
  <url>
    <video:video><video:thumbnail_loc>http://a.test/t.jpg</video:thumbnail_loc>
      <video:content_loc>http://a.test/v.mp4</video:content_loc><video:player_loc>http://a.test/p</video:player_loc></video:video>
    <loc>http://a.test/u/2</loc>
    <news:news><news:publication><news:name>N</news:name></news:publication><news:title>T</news:title></news:news>
    <foo:loc>http://a.test/foo</foo:loc>
    <foo:wrap><loc>http://a.test/nested</loc></foo:wrap>
    <lastmod>2024-05-01</lastmod>
  </url>
  <url><image:image><image:loc>http://a.test/img/only.jpg</image:loc></image:image></url>
</urlset>`;
    const doc = parseSitemap(xml);
    expect(doc.kind).toBe('urlset');
    expect(doc.entries).toEqual([
      { loc: 'http://a.test/u/1?a=1&b=2' },
      { loc: 'http://a.test/u/2', lastmod: Date.UTC(2024, 4, 1) },
    ]);
  });

  it('xhtml:link alternates are reported apart from the location', () => {
    const xml = `<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url><loc>http://a.test/en</loc>
    <xhtml:link rel="alternate" hreflang="de" href="http://a.test/de"/>
    <xhtml:link rel="alternate" hreflang="fr" href=" http://a.test/fr "/>
  </url>
</urlset>`;
    expect(parseSitemap(xml).entries).toEqual([
      { loc: 'http://a.test/en', alternates: ['http://a.test/de', 'http://a.test/fr'] },
    ]);
  });

  it('a sitemap index reads only <sitemap><loc>', () => {
    const xml = `<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:x="urn:x">
  <sitemap><x:loc>http://a.test/no.xml</x:loc><loc> http://a.test/s1.xml </loc></sitemap></sitemapindex>`;
    expect(parseSitemap(xml)).toMatchObject({ kind: 'index', entries: [{ loc: 'http://a.test/s1.xml' }] });
  });

  it('RSS 2.0: <item><link>, pubDate as lastmod; the channel link is not a page', () => {
    const rss = `<?xml version="1.0"?><rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/"><channel>
  <title>T</title><link>http://a.test/</link>
  <item><title>one</title><link> http://a.test/posts/1?x=1&amp;y=2 </link><pubDate>Wed, 01 May 2024 10:00:00 GMT</pubDate>
    <media:content url="http://a.test/m.jpg"/><guid>http://a.test/guid</guid></item>
  <item><link><![CDATA[http://a.test/posts/2]]></link></item>
  <item><title>no link</title></item>
</channel></rss>`;
    const doc = parseSitemap(rss);
    expect(doc.kind).toBe('rss');
    expect(doc.entries).toEqual([
      { loc: 'http://a.test/posts/1?x=1&y=2', lastmod: Date.UTC(2024, 4, 1, 10) },
      { loc: 'http://a.test/posts/2' },
    ]);
  });

  it('Atom 1.0: <entry><link href> (rel alternate or none), updated as lastmod; the feed links are not pages', () => {
    const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom">
  <title>T</title><link href="http://a.test/"/><link rel="self" href="http://a.test/feed.xml"/>
  <entry><title>1</title><link rel="edit" href="http://a.test/edit/1"/><link href="http://a.test/e/1"/>
    <updated>2024-05-01T10:00:00Z</updated><id>urn:x</id></entry>
  <entry><link rel="alternate" type="text/html" href="http://a.test/e/2"/><link href="http://a.test/e/2b"/></entry>
  <entry><link rel="enclosure" href="http://a.test/x.mp3"/></entry>
</feed>`;
    const doc = parseSitemap(atom);
    expect(doc.kind).toBe('atom');
    expect(doc.entries).toEqual([
      { loc: 'http://a.test/e/1', lastmod: Date.UTC(2024, 4, 1, 10) },
      { loc: 'http://a.test/e/2' },
    ]);
  });

  it('any bytes never throw', () => {
    for (const t of [
      '<urlset><url><loc>',
      '<rss><channel><item><link>x',
      '<feed><entry><link',
      '\u0000\uFFFD<<>>',
      '<urlset>'.repeat(10_000),
    ]) {
      expect(() => parseSitemap(t)).not.toThrow();
    }
  });
});
