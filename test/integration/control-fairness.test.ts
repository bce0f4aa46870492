import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/config.js';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { deadPort, pagePaths, startDaemon, type TestDaemon } from '../helpers/control.js';
import { waitFor } from '../helpers/wait.js';

let site: DemoSite | undefined;
const crawlers: TestDaemon[] = [];
afterEach(async () => {
  for (const c of crawlers.splice(0)) await c.stop();
  await site?.close();
  site = undefined;
});

const PAGES = 150;

/**
 * Crawls the healthy site (and optionally a dead host) and returns the healthy host's pages
 * per second, from the daemon's start to its PAGES-th page.
 */
async function healthyRate(healthy: DemoSite, deadOrigin?: string): Promise<{ rate: number; c: TestDaemon }> {
  const healthyHost = new URL(healthy.url).host;
  const jobs: NonNullable<ConfigInput['jobs']> = [
    { id: 'healthy', seeds: [`${healthy.url}/`], robots: false },
  ];
  if (deadOrigin) {
    jobs.push({ id: 'dead', seeds: pagePaths(40).map((p) => deadOrigin + p), robots: false });
  }
  const c = await startDaemon(
    {
      // Fixed limits: this is about sharing the global ceiling between hosts, not about AIMD,
      // and a fixed limit makes both runs comparable.
      concurrency: { adaptive: false, maxPerHost: 6, global: 12 },
      retry: { maxAttempts: 20, baseDelayMs: 50, maxDelayMs: 300 },
      breaker: { volumeThreshold: 5, resetTimeoutMs: 500 },
      jobs,
    },
    { once: false },
  );
  crawlers.push(c);
  const start = performance.now();
  const done = () => c.events.pageDone.filter((p) => p.host === healthyHost);
  await waitFor(() => done().length >= PAGES, { what: `${PAGES} healthy pages`, deadlineMs: 14_000 });
  return { rate: PAGES / ((done()[PAGES - 1]!.at - start) / 1000), c };
}

describe('a dead host next to a healthy one', () => {
  it('does not slow the healthy host down: same rate as alone, while the dead one keeps retrying', async () => {
    // 50 ms per page and 6 at a time: ~120 pages/s, so the crawler's CPU is not what is measured.
    site = await startDemoSite({ pages: PAGES, latencyMs: 50 });
    const dead = `http://127.0.0.1:${await deadPort()}`;
    const deadHost = new URL(dead).host;

    const alone = await healthyRate(site);
    await crawlers.pop()!.stop();
    const { rate: together, c } = await healthyRate(site, dead);

    const rates = `pages/s alone ${alone.rate.toFixed(1)}, next to the dead host ${together.toFixed(1)}`;
    expect(together / alone.rate, rates).toBeGreaterThanOrEqual(0.7);
    // Interleaving: the dead host was being tried (failures, breaker deferrals) while the
    // healthy pages completed, and none of its tasks ran out of attempts in that time.
    const first = c.events.pageDone[0]!.at;
    const last = c.events.pageDone.filter((p) => p.host !== deadHost).at(-1)!.at;
    const deadActivity = [...c.events.fetchError, ...c.events.deferred].filter(
      (e) => e.host === deadHost && e.at > first && e.at < last,
    );
    expect(deadActivity.length).toBeGreaterThan(0);
    expect(c.events.fetchError.some((e) => e.host === deadHost)).toBe(true);
    expect(c.events.deadLettered.filter((d) => d.at < last)).toEqual([]);
  });
});
