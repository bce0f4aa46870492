// Layout 3 of the single-Redis frontier (docs/redis.md, "Layout versions"): every lease is one
// entry host|suffix|token in {prefix}:leases. Expiry recovery from it, the migration of a
// layout-2 frontier at open, and the Redis commands a task costs (INFO commandstats).
import { afterAll, describe, expect, it } from 'vitest';
import { RedisFrontier } from '../../src/adapters/frontier/redis/redis-frontier.js';
import { FakeClock } from '../../src/core/clock.js';
import type { Task } from '../../src/ports/frontier.js';
import { lease, paths, req, url } from '../helpers/frontier-contract.js';
import { useRedis } from '../helpers/redis-server.js';

const redis = useRedis();
const open: RedisFrontier[] = [];

// After all tests, before the fixture's own afterAll (hooks after run last-registered first).
afterAll(async () => {
  for (const f of open.splice(0)) await f.close();
});

async function make(clock: FakeClock): Promise<RedisFrontier> {
  const f = new RedisFrontier({ url: redis.server.url, clock });
  open.push(f);
  await f.open();
  return f;
}

/** Commands Redis ran (those inside scripts included), less the scripts and INFO calls themselves. */
async function commands(): Promise<number> {
  const info = await redis.admin.info('commandstats');
  let n = 0;
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm))
    if (!['evalsha', 'eval', 'info', 'script'].includes(m[1]!)) n += Number(m[2]);
  return n;
}

/**
 * Rewrites a layout-3 frontier into layout 2 as crawld up to this layout wrote it: each lease
 * in its host's lease zset, its record marked leased with token, owner and expiry, the host in
 * the due index (at its earliest lease) and the leased-hosts set. Hosts here have one bucket.
 */
const TO_LAYOUT_2 = `
local all = redis.call('ZRANGE', '{crawld}:leases', 0, -1, 'WITHSCORES')
for i = 1, #all, 2 do
  local host, id, tok = string.match(all[i], '^([^|]*)|([^|]*)|(.*)$')
  local exp = tonumber(all[i + 1])
  local t = 'crawld:{' .. host .. '}:t'
  local r = cmsgpack.unpack(redis.call('HGET', t, id))
  r[1] = 'l' r[10] = tok r[11] = 'old-daemon' r[12] = exp
  for j = 1, 15 do if r[j] == nil then r[j] = false end end
  redis.call('HSET', t, id, cmsgpack.pack(r))
  redis.call('ZADD', 'crawld:{' .. host .. '}:l', exp, id)
  redis.call('ZADD', '{crawld}:due', 'LT', exp, host)
  redis.call('SADD', '{crawld}:leasedhosts', host)
end
redis.call('DEL', '{crawld}:leases', '{crawld}:tb')
redis.call('SET', '{crawld}:layout', '2')
return #all / 2
`;

describe('redis frontier, layout 3 (one lease zset)', () => {
  it('takes expired leases back exactly once, at their expiry, with their seq and attempts; the old token then fails', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const f = await make(clock);
    await f.enqueue([req('a'), req('b'), req('c', { url: url('c', 'other.example') })]);
    const leased = await lease(f, 3, { leaseMs: 1_000 });
    expect(paths(leased)).toEqual(['a', 'b', 'c']);
    expect(await redis.admin.zcard('{crawld}:leases')).toBe(3);
    expect(await f.ack(leased[1]!)).toBe(true);
    expect(await redis.admin.zcard('{crawld}:leases')).toBe(2);
    expect(await f.nextReadyAt()).toBe(leased[0]!.leaseExpiresAt);
    clock.advance(999);
    expect(await lease(f)).toEqual([]);
    expect(await f.stats()).toMatchObject({ pending: 0, leased: 2, done: 1 });
    clock.advance(1);
    const back = await lease(f, 10);
    expect(back.map((t) => [t.id, t.attempts])).toEqual([
      [leased[0]!.id, 0],
      [leased[2]!.id, 0],
    ]);
    // The first lease's token is spent; the new one works; nothing came back twice.
    expect(await f.ack(leased[0]!)).toBe(false);
    expect(await Promise.all(back.map((t) => f.ack(t)))).toEqual([true, true]);
    expect(await f.stats()).toMatchObject({ pending: 0, leased: 0, done: 3 });
    expect(await redis.admin.zcard('{crawld}:leases')).toBe(0);
    expect(await f.nextReadyAt()).toBeUndefined();
  });

  it('takes expired leases back in a lease() with per-host caps too, when no host is ready or due', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const f = await make(clock);
    await f.enqueue([req('a')]);
    const caps = { maxPerHost: () => 8 };
    const [task] = await lease(f, 10, { leaseMs: 1_000, ...caps });
    expect(task).toBeDefined();
    clock.advance(999);
    expect(await lease(f, 10, caps)).toEqual([]);
    clock.advance(1);
    // The index holds no host (the lease is in the lease zset only): this lease() still takes
    // it back, so the next one (a daemon's scheduler always passes maxPerHost) leases it.
    const back = [...(await lease(f, 10, caps)), ...(await lease(f, 10, caps))];
    expect(back.map((t) => t.id)).toEqual([task!.id]);
    expect(await f.stats()).toMatchObject({ pending: 0, leased: 1 });
  });

  it('migrates a layout-2 frontier at open: same leases, tokens and expiries, the old per-host keys gone', async () => {
    await redis.admin.flushdb();
    const clock = new FakeClock();
    const writer = await make(clock);
    await writer.enqueue([req('a'), req('b'), req('c', { url: url('c', 'other.example') })]);
    const leased = await lease(writer, 2, { leaseMs: 5_000 });
    // A host of several task hash buckets, whose count layout 2 kept in its meta hash only.
    const big = Array.from({ length: 150 }, (_, i) => req(`big${i}`, { url: url(`big${i}`, 'big.example') }));
    await writer.enqueue(big);
    await writer.close();
    expect(Number(await redis.admin.eval(TO_LAYOUT_2, 0))).toBe(2);

    const f = await make(clock);
    expect(await redis.admin.get('{crawld}:layout')).toBe('3');
    expect(await redis.admin.exists('crawld:{example.com}:l', '{crawld}:leasedhosts')).toBe(0);
    expect(Number(await redis.admin.hget('{crawld}:tb', 'big.example'))).toBeGreaterThan(1);
    const byId = (ts: readonly Task[]) => [...ts].sort((x, y) => x.id.localeCompare(y.id));
    expect(byId(await f.listLeased())).toEqual(byId(leased));
    expect(await f.stats()).toMatchObject({ pending: 151, leased: 2 });
    expect(await f.nextReadyAt()).toBeLessThanOrEqual(clock.now()); // c is ready
    // Every record of every bucket is found: all 151 ready tasks lease and ack.
    const rest = await lease(f, 200);
    expect(paths(rest).sort()).toEqual(['c', ...big.map((r) => new URL(r.url).pathname.slice(1))].sort());
    expect((await Promise.all(rest.map((t) => f.ack(t)))).every(Boolean)).toBe(true);
    expect(await f.ack(leased[0]!)).toBe(true);
    clock.advance(5_000); // b's lease, written by the old layout, expires
    const back = await lease(f, 5);
    expect(back.map((t) => t.id)).toEqual([leased[1]!.id]);
    expect(await f.ack(leased[1]!)).toBe(false);
    expect(await f.ack(back[0]!)).toBe(true);
    expect(await f.stats()).toMatchObject({ pending: 0, leased: 0, done: 153 });
  });

  it('costs at most 3.03 Redis commands a URL enqueued at one URL per host a call, and keeps splitting task hashes', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    const hosts = 500;
    const call = (n: number) =>
      f.enqueue(
        Array.from({ length: hosts }, (_, i) => req(`c${n}`, { url: url(`c${n}`, `h${i}.example`) })),
      );
    await call(0); // new hosts: each one's record count is made (a recount) once
    const before = await commands();
    for (let n = 1; n <= 3; n++) await call(n);
    const urls = 4 * hosts;
    // 3: one HSETNX, one ZADD and one HINCRBY (pending count) a host; the host set, bucket
    // counts, record counts and index entries in one command or two a call (4.1 before, with
    // one HINCRBY of a record count per host).
    expect(((await commands()) - before) / (3 * hosts)).toBeLessThanOrEqual(3.03);
    // The record count of each host (the split basis) adds up over calls: one host given
    // 200 URLs one a call is split like a host given them at once.
    for (let n = 0; n < 200; n++) await f.enqueue([req(`s${n}`, { url: url(`s${n}`, 'split.example') })]);
    expect(Number(await redis.admin.hget('{crawld}:nr', 'split.example'))).toBe(200);
    expect(Number(await redis.admin.hget('{crawld}:tb', 'split.example'))).toBeGreaterThanOrEqual(3);
    expect(await f.stats()).toMatchObject({ pending: urls + 200 });
  });

  it('costs at most 11 Redis commands a task leased and acked, and 1.33 a URL enqueued (100 hosts, 10 URLs each)', async () => {
    await redis.admin.flushdb();
    const f = await make(new FakeClock());
    const hosts = 100;
    const reqs = Array.from({ length: 1_000 }, (_, i) =>
      req(`p${i}`, { url: url(`p${i}`, `h${i % hosts}.example`) }),
    );
    let before = await commands();
    await f.enqueue(reqs);
    // 1.32: one HSETNX a URL, and per host one ZADD and one HINCRBY (pending count) for all
    // its URLs of the call; record counts one HMGET and one HSET a call (1.5 with a HINCRBY of
    // each host's record count; 3.3 with each URL's entry and count on its own).
    expect(((await commands()) - before) / reqs.length).toBeLessThanOrEqual(1.33);
    before = await commands();
    let done = 0;
    for (;;) {
      const tasks = await lease(f, 50);
      if (tasks.length === 0) break;
      for (const ok of await Promise.all(tasks.map((t) => f.ack(t)))) if (ok) done++;
    }
    expect(done).toBe(reqs.length);
    // Main before layout 3: 19 a task (per-host lease zset, due entry, leased-hosts set,
    // and the record rewritten at each lease).
    expect(((await commands()) - before) / done).toBeLessThanOrEqual(11);
  });
});
