import { describe, expect, it } from 'vitest';
import { LAYOUT_VERSION, RedisLayoutError } from '../../src/adapters/frontier/redis/layout.js';
import { RedisFrontier } from '../../src/adapters/frontier/redis/redis-frontier.js';
import { FakeClock } from '../../src/core/clock.js';
import { lease, paths, req, url } from '../helpers/frontier-contract.js';
import { useRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';
import { frontierContract } from './frontier-contract.js';

const redis = useRedis();

/** Script calls so far (EVALSHA and EVAL): commands run inside scripts count in total_commands_processed too. */
async function scripts(): Promise<number> {
  const info = await redis.admin.info('commandstats');
  const calls = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

// Each case gets an empty database; cases run one after another within this file.
frontierContract('redis', async (clock, opts) => {
  await redis.admin.flushdb();
  const frontier = new RedisFrontier({ url: redis.server.url, clock, ...opts });
  return { frontier, cleanup: () => frontier.close() };
});

describe('redis frontier specifics', () => {
  const open: RedisFrontier[] = [];
  const make = async (clock: FakeClock) => {
    const f = new RedisFrontier({ url: redis.server.url, clock });
    open.push(f);
    await f.open();
    return f;
  };
  const cleanup = async () => {
    for (const f of open.splice(0)) await f.close();
  };

  it('lets two instances share the queue: dedupe, FIFO across hosts and counters stay consistent', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const a = await make(clock);
    const b = await make(clock);
    await a.enqueue([req('x'), req('h1', { url: url('h1', 'other.example') })]);
    expect(await b.enqueue([req('x'), req('y')])).toEqual({ added: 1, duplicates: 1, dropped: 0 });
    const [x, h1] = await lease(b, 2);
    expect(paths([x!, h1!])).toEqual(['x', 'h1']);
    await a.deadLetter(x!, 'http_404');
    expect(await b.listDead()).toMatchObject([{ url: url('x'), reason: 'http_404' }]);
    expect(await a.redrive()).toBe(1);
    expect(await b.ack(h1!)).toBe(true);
    expect(await a.stats()).toMatchObject({ pending: 2, leased: 0, done: 1, dead: 0 });
    expect(paths(await lease(a))).toEqual(['y', 'x']);
    await cleanup();
  });

  it('leases no more of a host than maxPerHost allows, leaving the rest to other daemons', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const a = await make(clock);
    const b = await make(clock);
    const other = (p: string) => req(p, { url: url(p, 'other.example') });
    await a.enqueue([...['a1', 'a2', 'a3', 'a4', 'a5'].map((p) => req(p)), other('o1'), other('o2')]);
    // One host, room for 2: two of its five, whatever `max` allows.
    expect(
      paths(await lease(a, 100, { maxPerHost: () => 2, excludeHosts: new Set(['other.example']) })),
    ).toEqual(['a1', 'a2']);
    // Several hosts: each capped by its own room; a host without room is not leased.
    const room = (host: string) => (host === 'example.com' ? 1 : 0);
    expect(paths(await lease(a, 100, { maxPerHost: room }))).toEqual(['a3']);
    // What a did not take is there for b.
    expect(paths(await lease(b, 100))).toEqual(['a4', 'a5', 'o1', 'o2']);
    await cleanup();
  });

  it('gives task ids of the form host|hash, stable per (job, url)', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    await f.enqueue([req('a')]);
    const [t] = await lease(f);
    expect(t?.id).toMatch(/^example\.com\|[\w-]{11}$/);
    await f.ack(t!);
    await f.enqueue([req('a', { force: true })]);
    expect((await lease(f))[0]?.id).toBe(t?.id);
    await cleanup();
  });

  it('refuses at open a frontier written in the previous layout, naming both versions, and stamps a new one', async () => {
    await redis.admin.flushdb();
    // Layout 1 (no layout key) as any frontier that ever enqueued left it: a sequence and records.
    await redis.admin.set('{crawld}:seq', '2');
    await redis.admin.hset('crawld:{example.com}:t', '0123456789abcdef', 'old record');
    const old = new RedisFrontier({ url: redis.server.url, clock: new FakeClock() });
    const err = await old.open().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(RedisLayoutError);
    expect((err as RedisLayoutError).code).toBe('CRAWLD_ERR_REDIS_LAYOUT');
    expect(String(err)).toMatch(
      new RegExp(`keyPrefix "crawld" holds data in layout 1.*reads layout ${LAYOUT_VERSION}`),
    );
    // Nothing was written, so the old crawld can still finish it.
    expect(await redis.admin.exists('{crawld}:layout')).toBe(0);
    expect(await redis.admin.hget('crawld:{example.com}:t', '0123456789abcdef')).toBe('old record');
    // An empty prefix is stamped at its first open.
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    expect(await redis.admin.get('{crawld}:layout')).toBe(String(LAYOUT_VERSION));
    await f.enqueue([req('a')]);
    await f.close();
    await f.open();
    expect(paths(await lease(f))).toEqual(['a']);
    await cleanup();
  });

  it('stores URLs without their scheme and host and gives each back exactly as enqueued', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    const urls = [
      'https://a.example/x?q=1',
      'http://a.example/h/y',
      'http://b.example:8080/',
      'https://user:pw@a.example/z',
      'HTTP://A.example/upper',
      'https://a.example.evil/w',
    ];
    await f.enqueue(urls.map((u) => ({ url: u, jobId: 'j' })));
    const stored = await redis.admin.hvals('crawld:{a.example}:t');
    expect(stored.some((v) => v.includes('/x?q=1') && !v.includes('a.example'))).toBe(true);
    const leased = await lease(f, 10);
    expect(leased.map((t) => t.url).sort()).toEqual([...urls].sort());
    expect((await f.listLeased()).map((t) => t.url).sort()).toEqual([...urls].sort());
    for (const t of leased) await f.deadLetter(t, 'gone');
    expect((await f.listDead()).map((d) => d.url).sort()).toEqual([...urls].sort());
    // Dedupe compares the stored forms: every URL again is a duplicate (a second instance: its
    // seen cache is empty, so Redis answers), and forced, each dead task comes back, none twice.
    const g = await make(new FakeClock());
    expect(await g.enqueue(urls.map((u) => ({ url: u, jobId: 'j' })))).toMatchObject({
      added: 0,
      duplicates: 6,
    });
    expect(await g.enqueue(urls.map((u) => ({ url: u, jobId: 'j', force: true })))).toMatchObject({
      added: 6,
    });
    expect(await g.stats()).toMatchObject({ pending: 6, dead: 0 });
    expect((await lease(g, 10)).map((t) => t.url).sort()).toEqual([...urls].sort());
    await cleanup();
  });

  it("splits a big host's task hash into listpack buckets, every record still found once", async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const f = await make(clock);
    const n = 1500;
    const reqs = Array.from({ length: n }, (_, i) => req(`p${i}`));
    // One bulk call of 700 (the buckets it needs are split first: past 512 entries a bucket
    // would become a hashtable for good), then calls of 100 as links arrive: a few splits each.
    await f.enqueue(reqs.slice(0, 700));
    for (let i = 700; i < n; i += 100) await f.enqueue(reqs.slice(i, i + 100));
    const buckets = Number(await redis.admin.hget('crawld:{example.com}:m', 'tb'));
    expect(buckets).toBeGreaterThanOrEqual(Math.ceil(n / 128)); // 64-128 records per bucket
    const keys = [
      'crawld:{example.com}:t',
      ...Array.from({ length: buckets - 1 }, (_, b) => `crawld:{example.com}:t${b + 1}`),
    ];
    let stored = 0;
    for (const key of keys) {
      stored += await redis.admin.hlen(key);
      expect(await redis.admin.object('ENCODING', key)).toBe('listpack');
    }
    expect(stored).toBe(n);
    // A second instance (empty seen cache): Redis finds every record in its bucket.
    const g = await make(clock);
    expect(await g.enqueue(reqs)).toMatchObject({ added: 0, duplicates: n });
    const leased = await lease(g, n);
    expect(new Set(leased.map((t) => t.id)).size).toBe(n);
    expect(paths(leased.slice(0, 3))).toEqual(['p0', 'p1', 'p2']);
    expect(await Promise.all(leased.map((t) => g.ack(t)))).toEqual(leased.map(() => true));
    expect(await g.stats()).toMatchObject({ pending: 0, leased: 0, done: n });
    // Done records stay findable (dedupe) and a forced one comes back under the same id.
    await g.enqueue([req('p777', { force: true })]);
    expect((await lease(g))[0]?.id).toBe(leased[777]!.id);
    await cleanup();
  });

  it('returns the leases of a dead instance to the queue after the visibility timeout', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const dying = await make(clock);
    await dying.enqueue([req('a'), req('b', { url: url('b', 'b.example') })]);
    expect(await lease(dying, 2, { leaseMs: 1_000 })).toHaveLength(2);
    await dying.close(); // never acks
    const survivor = await make(clock);
    expect(await lease(survivor)).toEqual([]);
    expect(await survivor.nextReadyAt()).toBe(clock.now() + 1_000);
    clock.advance(1_000);
    expect(paths(await lease(survivor))).toEqual(['a', 'b']);
    await cleanup();
  });

  it('rebuilds the global indexes from per-host state (repair after a crash between scripts)', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const f = await make(clock);
    await f.enqueue([req('a'), req('b', { url: url('b', 'b.example'), priority: 1 })]);
    // Simulate a client that died after its host scripts but before PUBLISH.
    await redis.admin.del('{crawld}:ready', '{crawld}:totals', '{crawld}:snap', '{crawld}:due');
    expect(await f.stats()).toMatchObject({ pending: 0 });
    expect(await f.repair()).toBe(2);
    expect(await f.stats()).toMatchObject({ pending: 2, pendingByPriority: { '0': 1, '1': 1 } });
    expect(paths(await lease(f))).toEqual(['a', 'b']);
    await cleanup();
  });

  it('keeps the index and totals by deltas exactly: a recount of every host after a mixed workload changes nothing', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const f = await make(clock);
    const hosts = ['a.example', 'b.example', 'c.example', 'd.example'];
    const reqs = hosts.flatMap((h, i) =>
      Array.from({ length: 30 }, (_, k) =>
        req(`p${k}`, {
          url: url(`p${k}`, h),
          priority: k % 3,
          notBefore: k % 7 === 0 ? clock.now() + 5_000 : undefined,
        }),
      ).slice(0, 30 - i * 5),
    );
    await f.enqueue(reqs);
    // Leases (some to expire), acks, retries (delayed), dead letters, a redrive, forced re-enqueues.
    const first = await lease(f, 40, { leaseMs: 1_000 });
    await Promise.all(first.slice(0, 10).map((t) => f.ack(t)));
    await Promise.all(
      first
        .slice(10, 15)
        .map((t) => f.retry(t, { at: clock.now() + 2_000, reason: 'x', chargeAttempt: true })),
    );
    await Promise.all(first.slice(15, 20).map((t) => f.deadLetter(t, 'gone')));
    await f.redrive({ ids: first.slice(15, 17).map((t) => t.id) });
    await f.enqueue([first[0]!, first[18]!].map((t) => ({ url: t.url, jobId: 'job1', force: true })));
    clock.advance(1_500); // the other 20 leases expire
    const second = await lease(f, 30);
    await Promise.all(
      second.slice(0, 12).map((t, i) => (i % 2 ? f.ack(t, { recrawlAt: clock.now() + 9_000 }) : f.ack(t))),
    );
    clock.advance(6_000); // delayed tasks and retries fall due
    await lease(f, 7);
    const view = async () => ({
      stats: await f.stats(),
      next: await f.nextReadyAt(),
      ready: await redis.admin.zrange('{crawld}:ready', 0, -1, 'WITHSCORES'),
      due: await redis.admin.zrange('{crawld}:due', 0, -1, 'WITHSCORES'),
      dead: (await redis.admin.smembers('{crawld}:deadhosts')).sort(),
      leased: (await redis.admin.smembers('{crawld}:leasedhosts')).sort(),
    });
    const kept = await view();
    expect(kept.stats.leased).toBeGreaterThan(0);
    expect(kept.stats.dead).toBeGreaterThan(0);
    expect(await f.repair()).toBe(hosts.length);
    expect(await view()).toEqual(kept);
    await cleanup();
  });

  it('refuses priorities outside [-2048, 2047] before writing anything', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    await expect(f.enqueue([req('a'), req('b', { priority: 5000 })])).rejects.toThrow(/priority/);
    expect((await f.stats()).pending).toBe(0);
    await cleanup();
  });
  it('answers links it stored from its cache, and forgets them when Redis comes back without its data', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    expect(await f.enqueue([req('a'), req('b')])).toEqual({ added: 2, duplicates: 0, dropped: 0 });
    const commands = async () =>
      Number(/total_commands_processed:(\d+)/.exec(await redis.admin.info('stats'))?.[1]);
    const before = await commands();
    expect(await f.enqueue([req('a'), req('b')])).toEqual({ added: 0, duplicates: 2, dropped: 0 });
    // Only the INFO calls themselves: the duplicates cost no round trip.
    expect((await commands()) - before).toBe(1);
    // A forced enqueue still goes to Redis (re-queues a finished task).
    expect(await f.enqueue([req('a', { force: true })])).toMatchObject({ duplicates: 1 });
    expect((await commands()) - before).toBeGreaterThan(2);

    await redis.server.restart(); // no persistence: it comes back empty
    await waitFor(async () => (await f.stats()).pending === 0, {
      what: 'nothing pending',
      deadlineMs: 10_000,
    });
    expect(await f.enqueue([req('a'), req('b')])).toEqual({ added: 2, duplicates: 0, dropped: 0 });
    await cleanup();
  });
  it('enqueues a call spanning 300 hosts in one script call, and leases 100 of them in one more', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    const reqs = Array.from({ length: 300 }, (_, i) => req(`p${i}`, { url: url(`p${i}`, `h${i}.example`) }));
    let before = await scripts();
    expect(await f.enqueue(reqs)).toEqual({ added: 300, duplicates: 0, dropped: 0 });
    // The sequence, the pending count, the host set and every host: one ENQUEUE_MANY (an EVAL
    // more if the script cache missed).
    expect((await scripts()) - before).toBeLessThanOrEqual(2);
    before = await scripts();
    const tasks = await lease(f, 100);
    expect(paths(tasks)).toEqual(reqs.slice(0, 100).map((r) => new URL(r.url).pathname.slice(1)));
    expect((await scripts()) - before).toBeLessThanOrEqual(2);
    expect(await f.stats()).toMatchObject({ pending: 200, leased: 100 });
    await cleanup();
  });

  it('sends the acks of one turn as one script call that also updates the index, and the counts stay exact', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    await f.enqueue(Array.from({ length: 50 }, (_, i) => req(`p${i}`)));
    const tasks = await lease(f, 50);
    expect(tasks).toHaveLength(50);
    const before = await scripts();
    expect(await Promise.all(tasks.map((t) => f.ack(t)))).toEqual(tasks.map(() => true));
    // One BATCH call carrying the 50 acks, which applies the host's snapshot to the index itself
    // on one Redis (a script each before batching: 100; 51-52 with publishes coalesced; then 2
    // with a PUBLISH after the BATCH). A NOSCRIPT fallback would add an EVAL: at most 2.
    const calls = (await scripts()) - before;
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(2);
    expect(await f.stats()).toMatchObject({ pending: 0, leased: 0, done: 50 });
    await cleanup();
  });
});
