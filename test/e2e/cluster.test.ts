/**
 * Three `crawld run` processes on one Redis frontier (a real redis-server, the real CLI, the
 * demo site as a separate process): the work is shared, nothing is done twice, a SIGKILLed
 * daemon's leased tasks come back to the others after the visibility timeout.
 */
import { describe, expect, it } from 'vitest';
import { countLines } from '../helpers/cli.js';
import { countByUrl, type Member, sitePages, startCluster, useClusterFixture } from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';

const PAGES = 1500;

const fx = useClusterFixture({ pages: PAGES, latencyMs: 20 });

/** Every page of the site is in the union; returns the URLs recorded more than once. */
function checkUnion(files: readonly string[]): string[] {
  const counts = countByUrl(files);
  const missing = sitePages(fx.origin, PAGES).filter((u) => !counts.has(u));
  expect(missing, `pages missing from the union of ${files.length} results files`).toEqual([]);
  return duplicates(files);
}

function duplicates(files: readonly string[]): string[] {
  return [...countByUrl(files)].filter(([, n]) => n > 1).map(([u]) => u);
}

describe('three daemons on one Redis frontier', () => {
  it('share one crawl: every page exactly once in the union, every daemon did part of it', async () => {
    fx.members = startCluster({
      redisUrl: fx.redis.url,
      keyPrefix: 'share',
      origin: fx.origin,
      daemons: 3,
      // Each daemon slow enough that none can finish the site before the last one is up (with
      // the defaults the first took 1263 of 1500 pages in 2.5 s and the last started to an
      // empty frontier), and a small lease-ahead buffer (max(64, 2 × global)) so that none
      // holds most of the queue.
      extra: () => ({ concurrency: { global: 16, maxPerHost: 8, initialPerHost: 8 } }),
    });
    const codes = await Promise.all(fx.members.map((m) => m.proc.exited));
    expect(codes, fx.members.map((m) => m.proc.stderr() + m.proc.stdout()).join('\n')).toEqual([0, 0, 0]);
    const perDaemon = fx.members.map((m) => countLines(m.results));
    console.log(`cluster share: pages per daemon ${perDaemon.join(', ')}`);
    for (const n of perDaemon) expect(n).toBeGreaterThan(0);
    expect(checkUnion(fx.members.map((m) => m.results))).toEqual([]);
  }, 120_000);

  it('a daemon SIGKILLed mid-crawl: its leases expire and the other two finish everything', async () => {
    const leaseMs = 3_000;
    fx.members = startCluster({
      redisUrl: fx.redis.url,
      keyPrefix: 'kill',
      origin: fx.origin,
      daemons: 3,
      leaseMs,
      // A bound on what the killed daemon can have written without acking: its in-flight tasks.
      extra: () => ({ concurrency: { maxPerHost: 8, initialPerHost: 8 } }),
    });
    const [victim, ...survivors] = fx.members as [Member, Member, Member];
    await waitFor(() => countLines(victim.results) >= 100, {
      what: '100 pages from the victim',
      deadlineMs: 60_000,
    });
    victim.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await victim.proc.exited).toBe('SIGKILL');
    const codes = await Promise.all(survivors.map((m) => m.proc.exited));
    expect(codes).toEqual([0, 0]);
    // The survivors could not have finished before the victim's leases expired (they were
    // still leased, and --once waits for leased to reach 0).
    expect(Date.now() - killedAt).toBeGreaterThanOrEqual(leaseMs - 500);

    // Survivors never repeat each other's work; the only possible repeats are pages the
    // victim wrote and died before acking (at most its in-flight tasks).
    expect(duplicates(survivors.map((m) => m.results)), 'duplicates among the survivors').toEqual([]);
    const dup = checkUnion(fx.members.map((m) => m.results));
    console.log(
      `cluster kill: victim wrote ${countLines(victim.results)} pages before SIGKILL; ` +
        `survivors ${survivors.map((m) => countLines(m.results)).join(', ')}; ` +
        `pages recorded twice (victim's unacked in-flight): ${dup.length}`,
    );
    expect(dup.length).toBeLessThanOrEqual(8);
  }, 120_000);
});
