import { Agent, get } from 'node:http';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { waitFor } from '../helpers/wait.js';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
afterAll(() => agent.destroy());

interface Got {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  ms: number;
}

function fetchPath(site: DemoSite, path: string): Promise<Got> {
  const start = performance.now();
  return new Promise((resolve, reject) => {
    get(site.url + path, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          ms: performance.now() - start,
        }),
      );
    }).on('error', reject);
  });
}

function hrefs(html: string): string[] {
  return [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1] ?? '');
}

function price(html: string): string | undefined {
  return /<span class="price">([^<]*)<\/span>/.exec(html)?.[1];
}

const sites: DemoSite[] = [];
async function start(opts: Parameters<typeof startDemoSite>[0]): Promise<DemoSite> {
  const site = await startDemoSite(opts);
  sites.push(site);
  return site;
}
afterEach(async () => {
  await Promise.all(sites.splice(0).map((s) => s.close()));
});

describe('demo site', () => {
  it('makes every page reachable from / by following links, each link to an existing page', async () => {
    const site = await start({ pages: 300 });
    const seen = new Set<string>(['/']);
    let frontier = ['/'];
    while (frontier.length > 0) {
      const pages = await Promise.all(frontier.map((p) => fetchPath(site, p)));
      frontier = [];
      for (const page of pages) {
        expect(page.status).toBe(200);
        for (const h of hrefs(page.body)) {
          expect(h).toMatch(/^\/(p\/[1-9]\d*)?$/);
          if (!seen.has(h)) {
            seen.add(h);
            frontier.push(h);
          }
        }
      }
    }
    expect(seen.size).toBe(300);
    const stats = site.stats();
    expect(stats.pagesServed).toBe(300);
    expect(Object.values(stats.byPath).every((n) => n === 1)).toBe(true);
  });

  it('serves exactly N pages, a redirect for /p/0, robots.txt and a full sitemap', async () => {
    const site = await start({ pages: 300 });
    expect((await fetchPath(site, '/p/299')).status).toBe(200);
    expect((await fetchPath(site, '/p/299?utm_source=x')).status).toBe(200);
    for (const p of ['/p/300', '/p/007', '/p/-1', '/p/', '/nope'])
      expect((await fetchPath(site, p)).status).toBe(404);
    const zero = await fetchPath(site, '/p/0');
    expect(zero.status).toBe(301);
    expect(zero.headers['location']).toBe('/');

    const robots = await fetchPath(site, '/robots.txt');
    expect(robots.headers['content-type']).toMatch(/^text\/plain/);
    expect(robots.body).toContain('User-agent: *');
    expect(robots.body).toContain(`Sitemap: ${site.url}/sitemap.xml`);

    const sitemap = await fetchPath(site, '/sitemap.xml');
    const locs = [...sitemap.body.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
    expect(locs).toHaveLength(300);
    expect(new Set(locs).size).toBe(300);
    expect(locs[0]).toBe(`${site.url}/`);
    expect(locs).toContain(`${site.url}/p/299`);

    const stats = JSON.parse((await fetchPath(site, '/__stats')).body) as Record<string, unknown>;
    expect(stats).toMatchObject({ pages: 300, inflight: 0 });
    expect(stats['requests']).toBe(site.stats().requests);
  });

  it('serves realistic, deterministic ~15 KB pages', async () => {
    const a = await start({ pages: 100, seed: 7 });
    const b = await start({ pages: 100, seed: 7 });
    const c = await start({ pages: 100, seed: 8 });
    const page = await fetchPath(a, '/p/5');
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['connection']).toBe('keep-alive');
    expect(Buffer.byteLength(page.body)).toBeGreaterThan(13_000);
    expect(Buffer.byteLength(page.body)).toBeLessThan(18_000);
    expect(page.body).toContain('<title>Product 5 — Demo Shop</title>');
    expect(page.body).toMatch(/<meta name="description" content="Product 5: [^"]+">/);
    expect(page.body).toContain('<h1 class="title">Product 5</h1>');
    expect(price(page.body)).toMatch(/^\$\d{1,3}(,\d{3})*\.\d{2}$/);
    expect(hrefs(page.body)).toEqual(expect.arrayContaining(['/', '/p/11', '/p/12', '/p/2']));

    expect((await fetchPath(a, '/p/5')).body).toBe(page.body);
    expect((await fetchPath(b, '/p/5')).body).toBe(page.body);
    expect((await fetchPath(c, '/p/5')).body).not.toBe(page.body);
  });

  it('changes prices with the epoch, from setPriceEpoch or the priceEpoch option', async () => {
    let epoch = 0;
    const site = await start({ pages: 50, priceEpoch: () => epoch });
    const paths = Array.from({ length: 20 }, (_, i) => (i === 0 ? '/' : `/p/${i}`));
    const pricesNow = async () => Promise.all(paths.map(async (p) => price((await fetchPath(site, p)).body)));
    const p0 = await pricesNow();
    expect(await pricesNow()).toEqual(p0);
    epoch = 1;
    const p1 = await pricesNow();
    expect(p1.filter((p, i) => p !== p0[i]).length).toBeGreaterThanOrEqual(18);
    site.setPriceEpoch(0);
    expect(await pricesNow()).toEqual(p0);
    site.setPriceEpoch(1);
    expect(await pricesNow()).toEqual(p1);
  });

  it('fails a deterministic fraction of page requests, and retries can succeed', async () => {
    const run = async () => {
      const site = await start({ pages: 1000, errorRate: 0.3, seed: 3 });
      const paths = Array.from({ length: 1000 }, (_, i) => (i === 0 ? '/' : `/p/${i}`));
      const first = await Promise.all(paths.map((p) => fetchPath(site, p)));
      const failed = paths.filter((_, i) => first[i]?.status === 500);
      const retried = await Promise.all(failed.map((p) => fetchPath(site, p)));
      expect(site.stats().errors).toBe(failed.length + retried.filter((r) => r.status === 500).length);
      expect((await fetchPath(site, '/robots.txt')).status).toBe(200);
      return { failed, recovered: retried.filter((r) => r.status === 200).length };
    };
    const one = await run();
    expect(one.failed.length).toBeGreaterThan(240);
    expect(one.failed.length).toBeLessThan(360);
    expect(one.recovered).toBeGreaterThan(one.failed.length * 0.55);
    expect((await run()).failed).toEqual(one.failed);
  });

  it('raises latency past the capacity knee', async () => {
    const site = await start({ pages: 100, latencyMs: 40, capacity: 4 });
    const burst = async (n: number) => {
      const got = await Promise.all(Array.from({ length: n }, (_, i) => fetchPath(site, `/p/${i + 1}`)));
      return Math.max(...got.map((g) => g.ms));
    };
    const atCapacity = await burst(4);
    const overloaded = await burst(16);
    // The 16th request in flight waits 40 × 16/4 = 160 ms; at capacity each waits 40 ms.
    expect(atCapacity).toBeGreaterThanOrEqual(39);
    expect(overloaded).toBeGreaterThanOrEqual(155);
    expect(site.stats().maxInflight).toBe(16);
  });

  it('closes promptly with requests still waiting out their latency', async () => {
    const site = await startDemoSite({ pages: 10, latencyMs: 60_000 });
    const pending = fetchPath(site, '/').catch((err: unknown) => err);
    await waitFor(() => site.stats().inflight === 1, 'the request in flight at the site');
    // Closes without waiting out the 60 s: that would reach the test's timeout (30 s).
    await site.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});
