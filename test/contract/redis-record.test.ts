// Records packed by the client (redis/record.ts) against a real Redis's cmsgpack: the same
// bytes as Lua packs for the same record, so they read the same and cost the same memory.
import { hash } from 'node:crypto';
import { expect, it } from 'vitest';
import { hashOf } from '../../src/adapters/frontier/redis/enqueue-wire.js';
import { RedisFrontier } from '../../src/adapters/frontier/redis/redis-frontier.js';
import { fragment } from '../../src/adapters/frontier/redis/scripts.js';
import {
  ByteWriter,
  decodeRecord,
  type NewRecord,
  writeHead,
  writeTail,
} from '../../src/adapters/frontier/redis/task-record.js';
import { FakeClock } from '../../src/core/clock.js';
import { lease, paths, req, url } from '../helpers/frontier-contract.js';
import { useRedis } from '../helpers/redis-server.js';

const redis = useRedis();

/** The record as the Lua of lua/prelude.lua packs it ({s, u, j, p, dp, 0, 0, q, false..., ru}). */
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

/** A new record's bytes before and after its seq, as the enqueue's wire form carries them. */
function recordParts(r: NewRecord): { head: Buffer; tail: Buffer | undefined } {
  const head = new ByteWriter();
  writeHead(head, r);
  if (r.requestUrl === undefined) return { head: head.take(), tail: undefined };
  const tail = new ByteWriter();
  writeTail(tail, r.requestUrl);
  return { head: head.take(), tail: tail.take() };
}

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

// TAKE answers records as stored and the client decodes them (decodeRecord): every encoding
// cmsgpack writes for a record's fields reads back as the values Lua packed.
it('decodes the records cmsgpack packs, at every width of their strings and numbers', async () => {
  const cases: [string, unknown[]][] = [
    ["{'r', '/a', 'j', 0, 0, 0, 0, 1}", ['r', '/a', 'j', 0, 0, 0, 0, 1]],
    [
      `{'f', '', '${'k'.repeat(31)}', -1, 127, 128, 255, 256, false, 'tok', false, 65535, 'oops', 65536, '/r'}`,
      ['f', '', 'k'.repeat(31), -1, 127, 128, 255, 256, false, 'tok', false, 65535, 'oops', 65536, '/r'],
    ],
    [
      `{'x', '${'é'.repeat(200)}', '${'k'.repeat(32)}', -33, -200, -40000, -3000000000, 4294967295, 4294967296, 2199023255551, 1.5}`,
      [
        'x',
        'é'.repeat(200),
        'k'.repeat(32),
        -33,
        -200,
        -40000,
        -3000000000,
        4294967295,
        4294967296,
        2 ** 41 - 1,
        1.5,
      ],
    ],
    [`{'d', string.rep('y', 70000), 'j', -2048, 2047}`, ['d', 'y'.repeat(70000), 'j', -2048, 2047]],
  ];
  for (const [lua, want] of cases) {
    const packed = (await redis.admin.callBuffer('EVAL', `return cmsgpack.pack(${lua})`, 0)) as Buffer;
    expect(decodeRecord(packed)).toEqual(want);
  }
  expect(() => decodeRecord(Buffer.from([0x81, 0xa1, 0x61, 0x01]))).toThrow(/msgpack array/);
});

// Task ids are the first 8 bytes of SHA-1(job, url) in base64url: cut from the digest's
// base64url string, they must stay the ids every stored frontier holds.
it('names a task by the first 8 bytes of SHA-1 over job and URL, as stored frontiers do', () => {
  for (let i = 0; i < 500; i++) {
    const r = { jobId: i % 2 ? 'job' : '', url: `http://h${i}.example/é/${i}?q=${'x'.repeat(i % 50)}` };
    const want = hash('sha1', `${r.jobId}\n${r.url}`, 'buffer').subarray(0, 8).toString('base64url');
    expect(hashOf(r as Parameters<typeof hashOf>[0])).toBe(want);
  }
});

// ENQUEUE_MANY appends the seq to the client's head with struct.pack (withq): the same bytes
// as cmsgpack.pack(q), in every integer encoding a seq can take (1 .. 2^41 - 1).
it('appends the seq as cmsgpack packs it, at every encoding width', async () => {
  const seqs = [1, 127, 128, 255, 256, 65535, 65536, 2 ** 32 - 1, 2 ** 32, 2 ** 41 - 1];
  for (const q of seqs) {
    const ours = (await redis.admin.callBuffer(
      'EVAL',
      `${fragment('withq')} return withq(ARGV[1], tonumber(ARGV[2]))`,
      0,
      'hd',
      q,
    )) as Buffer;
    const lua = (await redis.admin.callBuffer(
      'EVAL',
      'return ARGV[1] .. cmsgpack.pack(tonumber(ARGV[2]))',
      0,
      'hd',
      q,
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

// A call of more than one part (redis/enqueue.ts: parts of whole hosts, a host of more than
// 2000 requests in pieces, each part sent as encoded): FIFO within a host and a priority
// across the parts, exact maxPending across them, every URL once.
it('sends a big call in parts: FIFO per host and priority, maxPending exact, every URL once', async () => {
  await redis.admin.flushdb();
  const clock = new FakeClock();
  const f = new RedisFrontier({ url: redis.server.url, clock, maxPending: 3_000 });
  await f.open();
  try {
    const big = Array.from({ length: 2_500 }, (_, i) => req(`b${i}`, { url: url(`b${i}`, 'big.example') }));
    const small = Array.from({ length: 600 }, (_, i) =>
      req(`s${i}`, { url: url(`s${i}`, `h${i % 300}.example`), priority: i % 2 }),
    );
    // 3,100 requests, room for 3,000: the last 100 in the order the parts run are dropped
    // (hosts in the order of their first request: the 300 small hosts, then big.example).
    expect(await f.enqueue([...small.slice(0, 300), ...big, ...small.slice(300)])).toEqual({
      added: 3_000,
      duplicates: 0,
      dropped: 100,
    });
    expect(await f.stats()).toMatchObject({ pending: 3_000 });
    const all = [];
    for (;;) {
      const got = await lease(f, 500);
      if (got.length === 0) break;
      all.push(...got);
    }
    const urls = all.map((t) => t.url);
    expect(new Set(urls).size).toBe(3_000);
    // big.example's first 2,400 URLs (priority 0) lease in their order.
    const bigOrder = urls.filter((u) => u.includes('big.example'));
    expect(bigOrder).toEqual(big.slice(0, 2_400).map((r) => r.url));
    expect(all.filter((t) => !t.url.includes('big.example'))).toHaveLength(600);
    // Per host, per priority, in enqueue order.
    for (const host of ['h0.example', 'h1.example', 'h299.example']) {
      const mine = all.filter((t) => t.host === host);
      for (const p of [0, 1]) {
        const got = mine.filter((t) => t.priority === p).map((t) => t.url);
        const want = small.filter((r) => r.url.includes(`//${host}/`) && r.priority === p).map((r) => r.url);
        expect(got).toEqual(want);
      }
    }
  } finally {
    await f.close();
  }
});

// An ack of a task never re-queued flips its record's state byte (ack.lua) instead of
// unpacking and packing it: the record it leaves is the one packing would write, {f, u, j, p,
// dp, a, g, c}, and one re-queued (a retry: its own seq) is done the general way, seq dropped.
it('leaves a done record as packing would write it, by either path', async () => {
  await redis.admin.flushdb();
  const clock = new FakeClock();
  const f = new RedisFrontier({ url: redis.server.url, clock });
  await f.open();
  try {
    await f.enqueue([req('a', { priority: -3, depth: 2 }), req('b')]);
    const [a, b] = await lease(f, 2);
    expect(await f.retry(b!, { at: clock.now(), reason: 'again', chargeAttempt: true })).toBe(true);
    const [b2] = await lease(f, 1);
    for (const t of [a!, b2!]) expect(await f.ack(t)).toBe(true);
    const CHECK = `
local v = redis.call('HGET', KEYS[1], ARGV[1])
local r = cmsgpack.unpack(v)
local same = 0
if cmsgpack.pack(r) == v then same = 1 end
return {r[1], #r, same, r[4], r[6], r[13] or ''}`;
    for (const [t, want] of [
      [a!, ['f', 8, 1, -3, 0, '']],
      [b2!, ['f', 13, 1, 0, 1, 'again']],
    ] as const) {
      const [host, suffix] = t.id.split('|');
      expect(await redis.admin.eval(CHECK, 1, `crawld:{${host}}:t`, suffix!)).toEqual(want);
    }
    expect(await f.stats()).toMatchObject({ pending: 0, leased: 0, done: 2 });
  } finally {
    await f.close();
  }
});
