// Records packed by the client (redis-record.ts) against a real Redis's cmsgpack: the same
// bytes as Lua packs for the same record, so they read the same and cost the same memory.
import { expect, it } from 'vitest';
import { RedisFrontier } from '../../src/adapters/frontier/redis.js';
import { type NewRecord, recordParts } from '../../src/adapters/frontier/redis-record.js';
import { FakeClock } from '../../src/core/clock.js';
import { useRedis } from '../helpers/redis-server.js';
import { lease, paths, req, url } from './frontier-contract-helpers.js';

const redis = useRedis();

/** The record as the Lua of redis-lua.ts packs it ({s, u, j, p, dp, 0, 0, q, false..., ru}). */
const LUA_PACK = `
local r = {ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5]), 0, 0, tonumber(ARGV[6])}
if ARGV[7] ~= '' then for i = 9, 14 do r[i] = false end r[15] = ARGV[7] end
return cmsgpack.pack(r)`;

const cases: [NewRecord, number][] = [
  [{ ready: true, url: '/a', jobId: 'j', priority: 0, depth: 0, requestUrl: undefined }, 1],
  [{ ready: false, url: `/${'x'.repeat(40)}`, jobId: '', priority: -1, depth: 200, requestUrl: '/b' }, 300],
  [
    {
      ready: true,
      url: `/${'é'.repeat(200)}`,
      jobId: 'job',
      priority: -200,
      depth: 70000,
      requestUrl: undefined,
    },
    2 ** 40,
  ],
  [
    {
      ready: true,
      url: `/${'y'.repeat(70000)}`,
      jobId: 'k'.repeat(31),
      priority: 1000,
      depth: 5,
      requestUrl: `/${'z'.repeat(300)}`,
    },
    70000,
  ],
  [
    {
      ready: false,
      url: '/c',
      jobId: 'k'.repeat(32),
      priority: -40000,
      depth: 2 ** 33,
      requestUrl: undefined,
    },
    2 ** 32 + 7,
  ],
];

it('packs a new record to the bytes cmsgpack packs for it', async () => {
  for (const [r, q] of cases) {
    const { head, tail } = recordParts(r);
    const ours = Buffer.concat([
      head,
      (await redis.admin.callBuffer('EVAL', 'return cmsgpack.pack(tonumber(ARGV[1]))', 0, q)) as Buffer,
      tail ?? Buffer.alloc(0),
    ]);
    const lua = (await redis.admin.callBuffer(
      'EVAL',
      LUA_PACK,
      0,
      r.ready ? 'r' : 'd',
      r.url,
      r.jobId,
      r.priority,
      r.depth,
      q,
      r.requestUrl ?? '',
    )) as Buffer;
    expect(ours.toString('hex')).toBe(lua.toString('hex'));
  }
});

// ENQUEUE_MANY writes the usual URL outright and sends the rest (forced, duplicate, delayed
// with a request URL) through the general path: one call mixing them on one host keeps the
// FIFO order, the counts and the records.
it('mixes new, duplicate, delayed and forced URLs of one host in one call', async () => {
  await redis.admin.flushdb();
  const clock = new FakeClock();
  const f = new RedisFrontier({ url: redis.server.url, clock });
  await f.open();
  try {
    const later = clock.now() + 1000;
    const wire = 'http://example.com/b?wire';
    const reply = await f.enqueue([
      req('a'),
      req('a'),
      req('b', { requestUrl: wire, notBefore: later }),
      req('c', { priority: 1, depth: 300 }),
      req('d', { force: true }),
      req('e', { url: url('e', 'other.example') }),
    ]);
    expect(reply).toEqual({ added: 5, duplicates: 1, dropped: 0 });
    expect(await f.stats()).toMatchObject({ pending: 5, leased: 0 });
    const first = await lease(f, 10);
    expect(paths(first)).toEqual(['a', 'd', 'e', 'c']);
    expect(first[3]).toMatchObject({ priority: 1, depth: 300 });
    for (const t of first) expect(await f.ack(t)).toBe(true);
    clock.advance(1000);
    const [b] = await lease(f, 10);
    expect(b).toMatchObject({ url: url('b'), requestUrl: wire });
    expect(await f.enqueue([req('a', { force: true }), req('b')])).toEqual({
      added: 1,
      duplicates: 1,
      dropped: 0,
    });
    expect(paths(await lease(f, 10))).toEqual(['a']);
  } finally {
    await f.close();
  }
});
