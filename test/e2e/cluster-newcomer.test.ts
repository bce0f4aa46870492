/**
 * Daemons that join a crawl under way still get work: three `crawld run --once` on one Redis
 * frontier and one host, started a second apart, with crawld's default concurrency. Without a
 * bound on what one daemon leases ahead per host, the first ones held the host's ready tasks
 * and a later one could fetch nothing for most of the crawl; with a fixed bound (1024 tasks,
 * twice a host's limit) the third, started on a loaded machine with ~1,000 of 3,000 pages
 * left, fetched none of them (issue 37). Now the buffers hold about a second of a daemon's
 * fetching (engine/lease-ahead.ts).
 */
import { describe, expect, it } from 'vitest';
import { countLines } from '../helpers/cli.js';
import { countByUrl, sitePages, startClusterStaggered, useClusterFixture } from '../helpers/cluster.js';

const PAGES = 3000;

const fx = useClusterFixture({ pages: PAGES, latencyMs: 50 });

describe('daemons started later on a shared frontier', () => {
  it('each take a share of one host', async () => {
    const started: number[] = [];
    /** Pages written by all daemons when each one started. */
    const doneBefore: number[] = [];
    const firstPage: (number | undefined)[] = [undefined, undefined, undefined];
    const watch = setInterval(() => {
      for (const [i, m] of fx.members.entries()) {
        if (firstPage[i] === undefined && countLines(m.results) > 0) firstPage[i] = Date.now();
      }
    }, 20);
    const o = { redisUrl: fx.redis.url, keyPrefix: 'newcomer', origin: fx.origin, daemons: 3 };
    fx.members = [];
    const staggered = startClusterStaggered(o, 1000, (m) => {
      const i = fx.members.push(m) - 1;
      // From the moment the daemon has started (CLI loaded, frontier open, seeds in): the
      // CLI's own start-up is slow on a loaded machine and says nothing about leasing.
      void m.proc.waitFor(/crawld started/, 30_000).then(() => {
        started[i] = Date.now();
        doneBefore[i] = fx.members.reduce((n, other) => n + countLines(other.results), 0);
      });
    });
    await staggered;
    const codes = await Promise.all(fx.members.map((m) => m.proc.exited));
    clearInterval(watch);
    expect(codes, fx.members.map((m) => m.proc.stderr()).join('\n')).toEqual([0, 0, 0]);
    const perDaemon = fx.members.map((m) => countLines(m.results));
    const waits = firstPage.map((t, i) => ((t ?? Number.NaN) - started[i]!) / 1000);
    const shares = perDaemon.map((n, i) => `${((100 * n) / (PAGES - (doneBefore[i] ?? 0))).toFixed(0)} %`);
    console.log(
      `cluster newcomer: pages per daemon ${perDaemon.join(', ')} (done before each started: ${doneBefore.join(', ')}; ` +
        `share of the pages left then: ${shares.join(', ')}); first page ${waits.map((w) => w.toFixed(1)).join(', ')} s after start`,
    );
    const counts = countByUrl(fx.members.map((m) => m.results));
    expect(sitePages(fx.origin, PAGES).filter((u) => !counts.has(u))).toEqual([]);
    expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
    // Each daemon fetched soon after it started (0.2-0.6 s measured) and kept getting work.
    // How much each did also depends on its adaptive limit, which starts at 8 for a newcomer
    // while the first daemon's has grown: that is ramp-up, not starvation.
    for (const w of waits) expect(w).toBeLessThan(2);
    for (const n of perDaemon) expect(n).toBeGreaterThan(0);
  }, 120_000);
});
