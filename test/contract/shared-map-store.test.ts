/**
 * The SharedMapStore port on each store (one contract), and jars sharing one on a real Redis.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobCookieJar } from '../../src/adapters/cookies/job-jar.js';
import { RedisMapStore } from '../../src/adapters/shared-map/redis-map-store.js';
import { SqliteMapStore } from '../../src/adapters/shared-map/sqlite-map-store.js';
import type { SharedMapStore } from '../../src/ports/shared-map.js';
import { tempDir } from '../helpers/cli.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

let redis: RedisServer;
const clients: Redis[] = [];
const client = () => {
  const c = new Redis(redis.url);
  clients.push(c);
  return c;
};
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of clients) await c.quit();
  await redis?.stop();
});

const limits = { maxPerDomain: 50, maxTotal: 3000 };
const u = (s: string) => new URL(s);

const STORES: [string, () => { store: SharedMapStore; reopen: () => SharedMapStore }][] = [
  [
    'sqlite',
    () => {
      const path = join(tempDir('crawld-cookies-'), 'cookies.db');
      return {
        store: new SqliteMapStore(path, 'cookies'),
        reopen: () => new SqliteMapStore(path, 'cookies'),
      };
    },
  ],
  [
    'redis',
    () => {
      const prefix = `t${Math.random().toString(36).slice(2)}`;
      return {
        store: new RedisMapStore(client(), prefix, 'cookies'),
        reopen: () => new RedisMapStore(client(), prefix, 'cookies'),
      };
    },
  ],
];

describe.each(STORES)('SharedMapStore contract: %s', (_name, make) => {
  it('keeps what a jar stored, per job, and a removal removes', async () => {
    const { store, reopen } = make();
    await store.open();
    const jar = new JobCookieJar({ jobId: 'a', store, limits });
    await jar.open();
    await jar.storeResponse(u('http://shop.test/login'), [
      'sid=s1; Path=/',
      'tmp=1; Path=/',
      'pref=x; Max-Age=3600',
    ]);
    await jar.storeResponse(u('http://shop.test/'), ['tmp=; Max-Age=0; Path=/']);
    const other = new JobCookieJar({ jobId: 'b', store, limits });
    await other.open();
    await other.storeResponse(u('http://shop.test/'), ['mine=b']);
    await jar.close();
    await other.close();
    await store.close();

    const again = reopen();
    await again.open();
    const restarted = new JobCookieJar({ jobId: 'a', store: again, limits });
    await restarted.open();
    // Cookies of one path length set in the same millisecond: any order (RFC 6265 §5.4).
    expect((await restarted.cookieHeader(u('http://shop.test/x'))).split('; ').sort()).toEqual([
      'pref=x',
      'sid=s1',
    ]);
    expect(restarted.size).toBe(2);
    const b = new JobCookieJar({ jobId: 'b', store: again, limits });
    await b.open();
    expect(await b.cookieHeader(u('http://shop.test/'))).toBe('mine=b');
    await again.close();
  });
});

describe('RedisMapStore shared by two daemons', () => {
  it("a cookie one daemon's jar stored is sent by the other's next request; removals too", async () => {
    const prefix = `share${Date.now()}`;
    const [s1, s2] = [
      new RedisMapStore(client(), prefix, 'cookies'),
      new RedisMapStore(client(), prefix, 'cookies'),
    ];
    await s1.open();
    await s2.open();
    const one = new JobCookieJar({ jobId: 'j', store: s1, limits });
    const two = new JobCookieJar({ jobId: 'j', store: s2, limits });
    await one.open();
    await two.open();
    expect(await two.cookieHeader(u('https://shop.test/'))).toBe('');
    await one.storeResponse(u('https://shop.test/login'), ['sid=abc; Path=/; Secure']);
    // No wait, no poll: the request after the store sees it.
    expect(await two.cookieHeader(u('https://shop.test/cart'))).toBe('sid=abc');
    await two.storeResponse(u('https://shop.test/cart'), ['sid=def; Path=/; Secure', 'cart=1']);
    expect(await one.cookieHeader(u('https://shop.test/'))).toBe('sid=def; cart=1');
    await one.storeResponse(u('https://shop.test/logout'), ['sid=; Max-Age=0; Path=/; Secure']);
    expect(await two.cookieHeader(u('https://shop.test/'))).toBe('cart=1');
    // Concurrent requests share one round trip and all see the change.
    await one.storeResponse(u('https://shop.test/'), ['late=1']);
    const headers = await Promise.all(
      Array.from({ length: 20 }, () => two.cookieHeader(u('https://shop.test/'))),
    );
    expect(new Set(headers)).toEqual(new Set(['cart=1; late=1']));
  });

  it('a daemon further behind than the log reloads the whole jar', async () => {
    const prefix = `behind${Date.now()}`;
    const s1 = new RedisMapStore(client(), prefix, 'cookies');
    await s1.open();
    const writer = new JobCookieJar({
      jobId: 'j',
      store: s1,
      limits: { maxPerDomain: 5000, maxTotal: 5000 },
    });
    await writer.open();
    const reader = new JobCookieJar({
      jobId: 'j',
      store: s1,
      limits: { maxPerDomain: 5000, maxTotal: 5000 },
    });
    await reader.open();
    // More than 1000 changes since the reader's version: it gets the whole jar at once.
    for (let i = 0; i < 1100; i += 100)
      await writer.storeResponse(
        u('http://bulk.test/'),
        Array.from({ length: 100 }, (_, k) => `c${i + k}=${i + k}`),
      );
    const header = await reader.cookieHeader(u('http://bulk.test/'));
    expect(header.split('; ').length).toBe(1100);
    expect(reader.size).toBe(1100);
  });
});
