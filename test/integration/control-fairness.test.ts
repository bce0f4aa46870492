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

/** Crawls the healthy site next to a dead host until the healthy host's PAGES pages are done. */
async function crawlNextToDead(healthy: DemoSite, deadOrigin: string): Promise<TestDaemon> {
  const healthyHost = new URL(healthy.url).host;
  const jobs: NonNullable<ConfigInput['jobs']> = [
    { id: 'healthy', seeds: [`${healthy.url}/`], robots: false },
    { id: 'dead', seeds: pagePaths(40).map((p) => deadOrigin + p), robots: false },
  ];
  const c = await startDaemon(
    {
      // Fixed limits: this is about sharing the global ceiling between hosts, not about AIMD.
      concurrency: { adaptive: false, maxPerHost: 6, global: 12 },
      retry: { maxAttempts: 20, baseDelayMs: 50, maxDelayMs: 300 },
      breaker: { volumeThreshold: 5, resetTimeoutMs: 500 },
      jobs,
    },
    { once: false },
  );
  crawlers.push(c);
  const done = () => c.events.pageDone.filter((p) => p.host === healthyHost);
  await waitFor(() => done().length >= PAGES, { what: `${PAGES} healthy pages`, deadlineMs: 25_000 });
  return c;
}

describe('a dead host next to a healthy one', () => {
  it('does not slow the healthy host down: its full limit in flight, while the dead one keeps retrying', async () => {
    // 50 ms per page: the healthy host's requests overlap, so its concurrency shows at the site.
    // (Its pages/s alone and next to the dead host: not a behaviour, and not measured here.)
    site = await startDemoSite({ pages: PAGES, latencyMs: 50 });
    const dead = `http://127.0.0.1:${await deadPort()}`;
    const deadHost = new URL(dead).host;
    const c = await crawlNextToDead(site, dead);

    // The dead host's retries never held the healthy host's slots of the global 12.
    expect(site.stats().maxInflight).toBeGreaterThanOrEqual(6);
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
