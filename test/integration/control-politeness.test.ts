import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../helpers/cleanup.js';
import { html, page, pagePaths, startDaemon, startServer } from '../helpers/control.js';
import { isPageRequest } from '../helpers/probe.js';
import { waitFor } from '../helpers/wait.js';

const track = closeAfterEach();

/** Gaps (ms) between consecutive arrivals. */
const gaps = (times: readonly number[]) => times.slice(1).map((t, i) => t - times[i]!);

describe('robots.txt', () => {
  it('skips disallowed pages and spaces requests by its Crawl-delay', async () => {
    const server = await startServer((path) => {
      if (path === '/robots.txt') {
        return { status: 200, body: 'User-agent: *\nDisallow: /private\nCrawl-delay: 1\n' };
      }
      if (path === '/') return html(page('home', ['/p/1', '/p/2', '/private/a', '/private/b']));
      return html(page(path));
    }).then(track);
    const crawler = await startDaemon(
      {
        // Room for several requests at once: only the crawl delay may space them out.
        concurrency: { initialPerHost: 8 },
        jobs: [{ id: 'polite', seeds: [`${server.url}/`] }],
      },
      { once: true },
    ).then(track);
    await waitFor(
      () => crawler.events.pageDone.length + crawler.events.skipped.length === 5,
      'the crawl to end',
    );
    await crawler.done;

    const skipped = crawler.events.skipped.map((s) => [new URL(s.url).pathname, s.reason]);
    expect(skipped.sort()).toEqual([
      ['/private/a', 'robots'],
      ['/private/b', 'robots'],
    ]);
    expect(server.arrivals.filter((a) => a.path.startsWith('/private'))).toEqual([]);
    const pages = server.arrivals.filter((a) => a.path !== '/robots.txt');
    expect(pages.map((a) => a.path).sort()).toEqual(['/', '/p/1', '/p/2']);
    // ~1 s apart. The delay is counted from admission, and the first page's admission also
    // waited for robots.txt to load, so the first gap is short by that load time (tens of ms).
    const [first, ...rest] = gaps(pages.map((a) => a.at));
    expect(first).toBeGreaterThanOrEqual(800);
    for (const gap of rest) expect(gap).toBeGreaterThanOrEqual(950);
  });
});

describe('per-host rate limit', () => {
  it('keeps the rate the server sees at or under the configured 20 requests per second', async () => {
    const n = 60;
    const server = await startServer((path) =>
      html(path === '/' ? page('home', pagePaths(n - 1)) : page(path)),
    ).then(track);
    const ratePerSec = 20;
    const crawler = await startDaemon(
      {
        // burst 1: the default burst (= the rate) would let a whole second's worth through at
        // once, which a run this short would measure as rate + burst.
        rateLimits: { hosts: [{ hosts: '*', ratePerSec, burst: 1 }] },
        concurrency: { initialPerHost: 16 },
        jobs: [{ id: 'limited', seeds: [`${server.url}/`], robots: false }],
      },
      { once: true },
    ).then(track);
    await waitFor(() => crawler.events.pageDone.length === n, 'every page');
    await crawler.done;

    // Every request the server saw keeps to the rate; the host's soft-404 probe (docs/traps.md) is one of them.
    const times = server.arrivals.map((a) => a.at);
    expect(server.arrivals.filter((a) => isPageRequest(a.path))).toHaveLength(n);
    expect(times).toHaveLength(n + 1);
    const overall = n / ((times.at(-1)! - times[0]!) / 1000);
    expect(overall).toBeLessThanOrEqual(1.1 * ratePerSec);
    // And in every 1 s window, not just on average.
    for (const t of times) {
      const inWindow = times.filter((u) => u >= t && u < t + 1000).length;
      expect(inWindow).toBeLessThanOrEqual(1.1 * ratePerSec);
    }
  });
});
