import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { useSite } from '../helpers/engine.js';

/**
 * A shop whose pages are listed only in sitemaps as real sites publish them: Google's image,
 * video and news extensions, xhtml:link alternates, an RSS 2.0 feed and an Atom feed.
 */
describe('sitemaps with extensions, and feeds as sitemaps (whole CLI)', () => {
  const site = useSite((req, res) => {
    const path = req.url ?? '/';
    const o = site.origin;
    const send = (type: string, body: string) => res.writeHead(200, { 'content-type': type }).end(body);
    if (path === '/robots.txt')
      return send('text/plain', `User-agent: *\nDisallow:\nSitemap: ${o}/shop.xml\n`);
    if (path === '/shop.xml')
      return send(
        'application/xml',
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
  xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
  xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>
      ${o}/u/1?a=1&amp;b=2
    </loc>
    <image:image><image:loc>${o}/img/1.jpg</image:loc></image:image>
  </url>
  <url><loc>${o}/u/2</loc><video:video><video:content_loc>${o}/v.mp4</video:content_loc></video:video>
    <news:news><news:title>t</news:title></news:news><xhtml:link rel="alternate" hreflang="de" href="${o}/de/u/2"/></url>
</urlset>`,
      );
    if (path === '/feed.rss')
      return send(
        'application/rss+xml',
        `<rss version="2.0"><channel><link>${o}/</link><item><link>${o}/posts/1</link></item><item><link>${o}/posts/2</link></item></channel></rss>`,
      );
    if (path === '/feed.atom')
      return send(
        'application/atom+xml',
        `<feed xmlns="http://www.w3.org/2005/Atom"><link rel="self" href="${o}/feed.atom"/><entry><link href="${o}/entries/1"/></entry></feed>`,
      );
    // Feeds in the encodings their XML declarations name, as Russian and French sites publish them.
    if (path === '/feed-1251.rss')
      return res
        .writeHead(200, { 'content-type': 'application/rss+xml' })
        .end(
          iconv.encode(
            `<?xml version="1.0" encoding="windows-1251"?><rss version="2.0"><channel><title>Новости</title>` +
              `<item><link>${o}/товары/1?q=цена</link></item></channel></rss>`,
            'win1251',
          ),
        );
    if (path === '/feed-latin1.xml')
      return res
        .writeHead(200, { 'content-type': 'text/xml' })
        .end(
          iconv.encode(
            `<?xml version='1.0' encoding='ISO-8859-1'?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
              `<url><loc>${o}/café/crème</loc></url></urlset>`,
            'latin1',
          ),
        );
    if (path.endsWith('.jpg') || path.endsWith('.mp4')) return res.writeHead(404).end();
    send('text/html', `<html><head><title>${path}</title></head><body>no links</body></html>`);
  });

  async function crawl(sitemaps: Record<string, unknown>) {
    const dataDir = tempDir();
    const file = writeJsonConfig(
      tempDir('crawld-sitemap-config-'),
      {
        dataDir,
        fetch: {
          allowPrivateNetworks: true,
          acceptContentTypes: ['text/html', 'application/*', 'text/plain'],
        },
        jobs: [{ id: 'shop', seeds: [`${site.origin}/`], scope: { maxDepth: 0 }, sitemaps }],
      },
      'config.json',
    );
    const run = await runCli(['run', '--config', file, '--once']);
    expect(run.code).toBe(0);
  }

  it("requests each <url>'s own location, the feeds' items, and never an image or video location", async () => {
    await crawl({ urls: [`${site.origin}/feed.rss`, `${site.origin}/feed.atom`] });
    for (const p of ['/u/1?a=1&b=2', '/u/2', '/posts/1', '/posts/2', '/entries/1'])
      expect(site.hits).toContain(p);
    expect(site.hits.filter((p) => /img|\.jpg|\.mp4|%20/.test(p))).toEqual([]);
    // Alternates only with the option.
    expect(site.hits).not.toContain('/de/u/2');
  });

  it('reads a feed and a sitemap in the encoding their XML declarations name', async () => {
    await crawl({ urls: [`${site.origin}/feed-1251.rss`, `${site.origin}/feed-latin1.xml`] });
    // URLs from XML are UTF-8 on the wire, path and query (only HTML documents encode queries
    // in their own encoding).
    expect(site.hits).toContain(`/${encodeURIComponent('товары')}/1?q=${encodeURIComponent('цена')}`);
    expect(site.hits).toContain(`/${encodeURIComponent('café')}/${encodeURIComponent('crème')}`);
    expect(site.hits.filter((p) => p.includes('%EF%BF%BD'))).toEqual([]);
  });

  it('sitemaps.alternates: true also enqueues the xhtml:link alternates', async () => {
    await crawl({ alternates: true });
    expect(site.hits).toContain('/de/u/2');
    expect(site.hits).toContain('/u/2');
  });
});
