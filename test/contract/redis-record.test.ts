// Records packed by the client (redis-record.ts) against a real Redis's cmsgpack: the same
// bytes as Lua packs for the same record, so they read the same and cost the same memory.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type NewRecord, recordParts } from '../../src/adapters/frontier/redis-record.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

let server: RedisServer;
let admin: Redis;

beforeAll(async () => {
  server = await startRedis();
  admin = new Redis(server.url);
});
afterAll(async () => {
  await admin?.quit();
  await server?.stop();
});

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
      (await admin.callBuffer('EVAL', 'return cmsgpack.pack(tonumber(ARGV[1]))', 0, q)) as Buffer,
      tail ?? Buffer.alloc(0),
    ]);
    const lua = (await admin.callBuffer(
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
