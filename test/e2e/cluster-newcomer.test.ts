/**
 * Daemons that join a crawl under way get work: `crawld run --once` daemons on one Redis frontier
 * and one host, as a user runs them (no --http-port). With a fixed bound on what a daemon leases
 * ahead (1024 tasks, twice a host's limit) the third, started on a loaded machine with ~1,000 of
 * 3,000 pages left, fetched none of them. Now the buffers hold about a second of a daemon's
 * fetching (engine/scheduler/lease-ahead.ts), and a daemon that finds nothing to lease is hungry: the others
 * then lease 200 ms ahead and hand back the rest (engine/scheduler/work-share.ts).
 *
 * What is asserted is behaviour: every page once, every daemon fetched pages of what was left
 * when it started. How soon and how large a share (a time, a ratio) depends on the machine's
 * load: those are figures of bench/recovery.mjs and bench/cluster-recovery.mjs
 * (docs/redis.md), printed here for the record only.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { countLines } from '../helpers/cli.js';
import {
  type ClusterFixture,
  countByUrl,
  type Member,
  sitePages,
  startCluster,
  startClusterStaggered,
  useClusterFixture,
} from '../helpers/cluster.js';
import { waitFor } from '../helpers/wait.js';

/** The site of the rate-limited crawls: 10 s at RATE, a late daemon joining with 1,000 left. */
const PAGES = 1500;
/** The site that sets the pace itself (~320 pages/s): 3,000 pages, ~10 s. */
const CAPACITY_PAGES = 3000;

const fx = useClusterFixture({ pages: PAGES, latencyMs: 50 });

/**
 * 150 pages/s for all daemons together (a shared rate limit): a crawl of PAGES lasts 10 s on
 * any machine that keeps up with that, so what is left when a daemon starts lasts as long as
 * its share says, and a share says whether the others let it have part of it, not how fast the
 * machine is (unlimited, a second's start-up more or less was the last 800 pages, all in the
 * others' requests and buffers, on this machine).
 */
const RATE = 150;
const rateLimits = { global: { ratePerSec: RATE, burst: 10 } };

const written = (members: readonly Member[]) => members.reduce((n, m) => n + countLines(m.results), 0);

/** Every page once in the union of the fixture's daemons' results, each daemon's exit 0. */
async function expectCrawlComplete(f: ClusterFixture, pages = PAGES): Promise<void> {
  const members = f.members;
  const codes = await Promise.all(members.map((m) => m.proc.exited));
  expect(codes, members.map((m) => m.proc.stderr()).join('\n')).toEqual(members.map(() => 0));
  const counts = countByUrl(members.map((m) => m.results));
  expect(sitePages(f.origin, pages).filter((u) => !counts.has(u))).toEqual([]);
  expect([...counts.values()].filter((n) => n > 1)).toEqual([]);
}

/** When the daemon wrote its first page (Date.now()), polled every 20 ms. */
function firstPageOf(m: Member): { at: () => number | undefined; stop: () => void } {
  let at: number | undefined;
  const watch = setInterval(() => {
    if (at === undefined && countLines(m.results) > 0) at = Date.now();
  }, 20);
  return { at: () => at, stop: () => clearInterval(watch) };
}

describe('daemons started later on a shared frontier', () => {
  it('each take a share of one host', async () => {
    const started: number[] = [];
    /** Pages written by all daemons when each one started. */
    const doneBefore: number[] = [];
    const firsts: ReturnType<typeof firstPageOf>[] = [];
    const o = {
      redisUrl: fx.redis.url,
      keyPrefix: 'newcomer',
      origin: fx.origin,
      daemons: 3,
      extra: () => ({ rateLimits }),
    };
    fx.members = [];
    await startClusterStaggered(o, 1000, (m) => {
      const i = fx.members.push(m) - 1;
      firsts[i] = firstPageOf(m);
      // From the moment the daemon has started (CLI loaded, frontier open, seeds in): the
      // CLI's own start-up is slow on a loaded machine and says nothing about leasing.
      void m.proc.waitFor(/crawld started/, 30_000).then(() => {
        started[i] = Date.now();
        doneBefore[i] = written(fx.members);
      });
    });
    await expectCrawlComplete(fx);
    for (const f of firsts) f.stop();
    const perDaemon = fx.members.map((m) => countLines(m.results));
    const waits = firsts.map((f, i) => ((f.at() ?? Number.NaN) - started[i]!) / 1000);
    const shares = perDaemon.map((n, i) => n / (PAGES - (doneBefore[i] ?? 0)));
    console.log(
      `cluster newcomer: pages per daemon ${perDaemon.join(', ')} (done before each started: ${doneBefore.join(', ')}; ` +
        `share of the pages left then: ${shares.map((s) => `${(100 * s).toFixed(0)} %`).join(', ')}); ` +
        `first page ${waits.map((w) => w.toFixed(1)).join(', ')} s after start`,
    );
    // Each daemon got work: pages that were left when it started.
    for (const n of perDaemon) expect(n).toBeGreaterThan(0);
  }, 120_000);

  it('a daemon that joins with pages left gets work', async () => {
    const late = await joinLate(fx, 'late', () => ({ rateLimits }));
    console.log(
      `cluster newcomer at ${RATE} pages/s: started with ${late.left} of ${PAGES} pages left (the others held ` +
        `${late.held} as it was spawned), fetched ${late.mine} (${(100 * late.share).toFixed(0)} %; a third is fair), ` +
        `first page ${late.wait.toFixed(1)} s after its start`,
    );
    expect(late.left).toBeGreaterThan(0);
    expect(late.mine).toBeGreaterThan(0);
  }, 120_000);
});

/**
 * The same where the site, not a rate limit, sets the pace: it serves 16 requests at a time
 * (the rest queue behind them), so the crawl runs at ~320 pages/s whatever the machine, and each
 * daemon's AIMD limit settles at its share of the site's knee, as against a real server. A
 * daemon joining with ~1,000 pages left starts at the others' limit (limit hints) and takes
 * about a third (measured 33-48 %; the others keep what they have in flight).
 */
describe('a daemon joining a crawl that the site limits', () => {
  const host = useClusterFixture({ pages: CAPACITY_PAGES, latencyMs: 50, capacity: 16 });

  it('gets work', async () => {
    const late = await joinLate(host, 'capacity', () => ({}), CAPACITY_PAGES);
    console.log(
      `cluster newcomer, site at 16 requests at a time: started with ${late.left} of ${CAPACITY_PAGES} pages left, ` +
        `fetched ${late.mine} (${(100 * late.share).toFixed(0)} %; a third is fair), ` +
        `first page ${late.wait.toFixed(1)} s after its start`,
    );
    expect(late.left).toBeGreaterThan(0);
    expect(late.mine).toBeGreaterThan(0);
  }, 120_000);
});

/**
 * Two daemons crawl the site; a third is spawned when 1,000 pages are left (it starts, CLI
 * loaded and frontier open, with 600-900 left). Every page once. What the first two held
 * (leased: in flight or buffered) as it was spawned, what was left at its start, what it
 * fetched, its share of that, and the seconds from its start to its first page.
 */
async function joinLate(
  f: ClusterFixture,
  keyPrefix: string,
  extra: () => Record<string, unknown>,
  pages = PAGES,
): Promise<{ left: number; held: number; mine: number; share: number; wait: number }> {
  const o = { redisUrl: f.redis.url, keyPrefix, origin: f.origin, extra };
  const first = startCluster({ ...o, daemons: 2 });
  f.members = [...first];
  await waitFor(() => written(first) >= pages - 1000, {
    what: `${pages - 1000} pages from the first two`,
    deadlineMs: 60_000,
  });
  // What the first two hold (leased: in flight or buffered) as the third is spawned.
  const redis = new Redis(f.redis.url);
  const held = Number(await redis.hget(`{${keyPrefix}}:totals`, 'l'));
  redis.disconnect();
  const [late] = startCluster({ ...o, daemons: 1, firstIndex: 2 });
  f.members.push(late!);
  const firstPage = firstPageOf(late!);
  await late!.proc.waitFor(/crawld started/, 30_000);
  const startedAt = Date.now();
  const left = pages - written(f.members);
  await expectCrawlComplete(f, pages);
  firstPage.stop();
  const mine = countLines(late!.results);
  const wait = ((firstPage.at() ?? Number.NaN) - startedAt) / 1000;
  return { left, held, mine, share: mine / left, wait };
}
