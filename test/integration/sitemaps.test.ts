import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/adapters/frontier/memory/memory-frontier.js';
import { decodeXml } from '../../src/adapters/parse/charset.js';
import { MemorySitemapStateStore } from '../../src/adapters/sitemap/sitemap-state-stores.js';
import { validateConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/core/clock.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { SitemapSeeder, type SitemapSettings } from '../../src/engine/job/sitemap-seeder.js';
import { createLogger } from '../../src/observe/logger.js';
import { readJsonl, tempDir } from '../helpers/cli.js';
import { closeAll, makeFetcher, startServer, type TestServer } from '../helpers/fetch.js';

/**
 * A site whose pages are reachable only through its sitemaps: robots.txt names an index,
 * the index names a plain XML sitemap and a gzipped one served as a file.
 */
async function sitemapSite(lastmods: Map<string, string>): Promise<TestServer> {
  let origin = '';
  const urlset = (paths: string[]) =>
    `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths
      .map((p) => `<url><loc>${origin}${p}</loc><lastmod>${lastmods.get(p) ?? '2024-01-01'}</lastmod></url>`)
      .join('')}<url><loc>http://elsewhere.test/out</loc></url></urlset>`;
  const server = await startServer((req, res) => {
    const path = req.url ?? '/';
    const send = (type: string, body: string | Buffer) => {
      res.writeHead(200, { 'content-type': type });
      res.end(body);
    };
    if (path === '/robots.txt')
      return send('text/plain', `User-agent: *\nAllow: /\nSitemap: ${origin}/index.xml\n`);
    if (path === '/index.xml')
      return send(
        'application/xml',
        `<sitemapindex><sitemap><loc>${origin}/a.xml</loc></sitemap><sitemap><loc>${origin}/b.xml.gz</loc></sitemap><sitemap><loc>${origin}/bomb.xml.gz</loc></sitemap></sitemapindex>`,
      );
    if (path === '/a.xml') return send('application/xml', urlset(['/p1', '/p2', '/p3']));
    if (path === '/b.xml.gz') return send('application/x-gzip', gzipSync(urlset(['/p4', '/p5'])));
    // 64 MiB of zeros gzip to ~64 KiB: must stop at maxBytes, not fill memory.
    if (path === '/bomb.xml.gz') return send('application/x-gzip', gzipSync(Buffer.alloc(64 * 1024 * 1024)));
    if (path.startsWith('/p') || path === '/')
      return send('text/html', `<html><head><title>page ${path}</title></head><body>no links</body></html>`);
    res.writeHead(404).end();
  });
  origin = server.origin;
  return server;
}

const settings = (over: Partial<SitemapSettings> = {}): SitemapSettings => ({
  urls: [],
  fromRobots: true,
  maxUrls: 1000,
  maxSitemaps: 10,
  maxBytes: 1024 * 1024,
  priority: 0,
  ...over,
});

describe('sitemaps as a seed source', () => {
  let daemon: Daemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await closeAll();
  });

  it('crawls pages found only through robots.txt, an index and a gzipped sitemap', async () => {
    const site = await sitemapSite(new Map());
    const dir = tempDir();
    const config = validateConfig({
      dataDir: dir,
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      jobs: [{ id: 'sm', seeds: [`${site.origin}/`], sitemaps: { maxBytes: 1024 * 1024 } }],
    });
    const logger = createLogger({ level: 'error', instanceId: 't', silent: true });
    daemon = await createDaemon(config, { once: true, logger });
    await daemon.run();
    const urls = readJsonl(join(dir, 'results.jsonl'))
      .map((r) => r.url as string)
      .sort();
    expect(urls).toEqual(['/', '/p1', '/p2', '/p3', '/p4', '/p5'].map((p) => `${site.origin}${p}`));
    // The out-of-scope URL was never requested (it would not even resolve).
    expect(site.paths.filter((p) => p.includes('elsewhere'))).toEqual([]);
  });

  it('caps URLs per discovery and survives a gzip bomb', async () => {
    const site = await sitemapSite(new Map());
    const frontier = new MemoryFrontier({ clock: systemClock });
    await frontier.open();
    const warnings: string[] = [];
    const seeder = new SitemapSeeder({
      fetcher: makeFetcher({ acceptContentTypes: ['application/xml', 'text/plain', 'application/x-gzip'] }),
      decodeXml,
      store: new MemorySitemapStateStore(),
      enqueue: (r) => frontier.enqueue(r),
      warn: (_m, meta) => warnings.push(String(meta.reason ?? meta.status ?? '')),
    });
    const job = {
      id: 'j',
      seeds: [`${site.origin}/`],
      scope: { hosts: [`127.0.0.1:${site.port}`], include: [], exclude: [], maxDepth: 5 },
      normalise: { stripTracking: true, sortQuery: true },
    };
    const capped = await seeder.discover(job, settings({ maxUrls: 2 }));
    expect(capped).toMatchObject({ urls: 2, added: 2, truncated: true });
    expect((await frontier.stats()).pending).toBe(2);

    const full = await seeder.discover(job, settings());
    // Five pages, the out-of-scope ones counted, the bomb failed at the cap.
    expect(full).toMatchObject({ sitemaps: 4, failed: 1, urls: 5, outOfScope: 2, added: 3 });
    expect(warnings).toContain('ERR_BUFFER_TOO_LARGE');
  });

  it('fetches each sitemap at its URL as written (query order, parameters, an empty query), once per dedupe key', async () => {
    let origin = '';
    const site = await startServer((req, res) => {
      const xml = (body: string) => res.writeHead(200, { 'content-type': 'application/xml' }).end(body);
      if (req.url === '/robots.txt')
        return res
          .writeHead(200, { 'content-type': 'text/plain' })
          .end(`Sitemap: ${origin}/map.php?type=pages&utm_source=robots\n`);
      if (req.url === '/map.php?type=pages&utm_source=robots')
        return xml(
          `<sitemapindex><sitemap><loc>${origin}/part.xml?</loc></sitemap><sitemap><loc>${origin}/part.xml</loc></sitemap></sitemapindex>`,
        );
      if (req.url === '/part.xml?') return xml(`<urlset><url><loc>${origin}/p?</loc></url></urlset>`);
      res.writeHead(404).end();
    });
    origin = site.origin;
    const frontier = new MemoryFrontier({ clock: systemClock });
    await frontier.open();
    const seeder = new SitemapSeeder({
      fetcher: makeFetcher({ acceptContentTypes: ['application/xml', 'text/plain'] }),
      decodeXml,
      store: new MemorySitemapStateStore(),
      enqueue: (r) => frontier.enqueue(r),
      warn: () => {},
    });
    const job = {
      id: 'j',
      seeds: [`${origin}/`],
      scope: { hosts: ['127.0.0.1'], include: [], exclude: [], maxDepth: 5 },
      normalise: { stripTracking: true, sortQuery: true },
    };
    expect(await seeder.discover(job, settings())).toMatchObject({ sitemaps: 2, failed: 0, added: 1 });
    // Its dedupe key (utm_source dropped, the empty query dropped) would have been requested before.
    expect(site.paths).toEqual(['/robots.txt', '/map.php?type=pages&utm_source=robots', '/part.xml?']);
    const [task] = await frontier.lease({ max: 10, leaseMs: 60_000, owner: 't' });
    expect(task).toMatchObject({ url: `${origin}/p`, requestUrl: `${origin}/p?` });
  });

  it('recrawls exactly the pages whose lastmod moved forward', async () => {
    const lastmods = new Map([['/p2', '2024-01-01']]);
    const site = await sitemapSite(lastmods);
    const frontier = new MemoryFrontier({ clock: systemClock });
    await frontier.open();
    const seeder = new SitemapSeeder({
      fetcher: makeFetcher({ acceptContentTypes: ['application/xml', 'text/plain', 'application/x-gzip'] }),
      decodeXml,
      store: new MemorySitemapStateStore(),
      enqueue: (r) => frontier.enqueue(r),
      warn: () => {},
    });
    const job = {
      id: 'j',
      seeds: [`${site.origin}/`],
      scope: { hosts: ['127.0.0.1'], include: [], exclude: [], maxDepth: 5 },
      normalise: { stripTracking: true, sortQuery: true },
    };
    const s = settings({ urls: [`${site.origin}/a.xml`], fromRobots: false });
    expect(await seeder.discover(job, s)).toMatchObject({ added: 3, updated: 0 });
    // Crawl them all.
    const leased = await frontier.lease({ max: 10, leaseMs: 60_000, owner: 't' });
    expect(leased).toHaveLength(3);
    for (const t of leased) await frontier.ack(t);
    expect((await frontier.stats()).pending).toBe(0);

    // Same lastmods: nothing to do. A newer lastmod on /p2: only /p2 comes back.
    expect(await seeder.discover(job, s)).toMatchObject({ added: 0, updated: 0 });
    lastmods.set('/p2', '2024-06-01');
    expect(await seeder.discover(job, s)).toMatchObject({ added: 1, updated: 1 });
    const again = await frontier.lease({ max: 10, leaseMs: 60_000, owner: 't' });
    expect(again.map((t) => t.url)).toEqual([`${site.origin}/p2`]);
    expect(again[0]!.generation).toBe(1);
  });
});
