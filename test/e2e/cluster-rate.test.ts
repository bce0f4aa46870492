/**
 * The global rate limit of the config holds for the whole cluster: three `crawld run`
 * processes on one Redis, each configured with rateLimits.global R, together send the demo
 * site at most ~R requests/s (each alone could send far more: without shared buckets the
 * three would send 3R). The rate is counted at the site (/__stats), not by the daemons.
 */
import { expect, it } from 'vitest';
import { countByUrl, sitePages, startCluster, stopAll, useClusterFixture } from '../helpers/cluster.js';
import { pause } from '../helpers/wait.js';

const PAGES = 400;
const RATE = 40;
const BURST = 10;

const fx = useClusterFixture({ pages: PAGES, latencyMs: 5 });

async function siteRequests(): Promise<number> {
  const res = await fetch(`${fx.origin}/__stats`);
  return ((await res.json()) as { requests: number }).requests;
}

/**
 * Samples the site's request counter until every daemon exits; the rate over the crawl's
 * window, from the first new request seen to the first sample at the final count (that
 * window is at most one sample period too long: the rate errs low, by < 250 ms).
 */
async function crawlRate(label: string): Promise<{ rate: number; seconds: number }> {
  const baseline = await siteRequests();
  const samples: { t: number; n: number }[] = [];
  let running = true;
  const done = Promise.all(fx.members.map((m) => m.proc.exited)).finally(() => {
    running = false;
  });
  while (running) {
    samples.push({ t: Date.now(), n: await siteRequests() });
    await pause(250, 'the sample period of the request counter');
  }
  expect(await done, fx.members.map((m) => m.proc.stderr()).join('\n')).toEqual([0, 0, 0]);
  const total = await siteRequests();
  const first = samples.find((s) => s.n > baseline)!;
  const last = samples.find((s) => s.n === total) ?? { t: Date.now(), n: total };
  const seconds = (last.t - first.t) / 1000;
  const rate = (total - first.n) / seconds;
  console.log(
    `cluster rate (${label}): ${total - baseline} requests, ${total - first.n} over ${seconds.toFixed(1)} s ` +
      `= ${rate.toFixed(1)} req/s (limit ${RATE}/s, burst ${BURST})`,
  );
  return { rate, seconds };
}

/** Every page crawled; returns the pages fetched more than once. */
function twice(): string[] {
  const counts = countByUrl(fx.members.map((m) => m.results));
  expect(sitePages(fx.origin, PAGES).filter((u) => !counts.has(u))).toEqual([]);
  return [...counts].filter(([, n]) => n > 1).map(([u]) => u);
}

it(`three daemons with a global limit of ${RATE}/s send at most 1.1 × ${RATE}/s together`, async () => {
  fx.members = startCluster({
    redisUrl: fx.redis.url,
    keyPrefix: 'rate',
    origin: fx.origin,
    daemons: 3,
    extra: () => ({ rateLimits: { global: { ratePerSec: RATE, burst: BURST } } }),
  });
  const { rate, seconds } = await crawlRate('global');
  expect(seconds).toBeGreaterThan(5);
  expect(rate).toBeLessThanOrEqual(1.1 * RATE);
  expect(twice()).toEqual([]);
}, 120_000);

it('a per-host limit holds across daemons too; with leases shorter than the wait for a token, no page is fetched twice', async () => {
  await stopAll(fx.members);
  // 64+ tasks leased per daemon at ~13 starts/s each: most would wait longer than the lease,
  // so tasks whose lease runs low must go back to the queue instead of being started.
  fx.members = startCluster({
    redisUrl: fx.redis.url,
    keyPrefix: 'rate-host',
    origin: fx.origin,
    daemons: 3,
    leaseMs: 2_000,
    extra: () => ({
      rateLimits: { hosts: [{ hosts: '127.0.0.1', ratePerSec: RATE, burst: BURST }] },
      fetch: { totalTimeoutMs: 1_000 },
    }),
  });
  const { rate, seconds } = await crawlRate('per host, 2 s leases');
  expect(seconds).toBeGreaterThan(5);
  expect(rate).toBeLessThanOrEqual(1.1 * RATE);
  const dup = twice();
  console.log(`cluster rate, 2 s leases: ${dup.length} pages fetched twice`);
  expect(dup).toEqual([]);
}, 120_000);
