import { Redis } from 'ioredis';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/rate/redis-rate-limiter.js';
import { systemClock } from '../../src/core/clock.js';
import { globalRate, hammer } from '../helpers/rate-hammer.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

let server: RedisServer;
const clients: Redis[] = [];
const client = () => {
  const c = new Redis(server.url);
  clients.push(c);
  return c;
};

beforeAll(async () => {
  server = await startRedis();
});
afterAll(async () => {
  for (const c of clients) await c.quit();
  await server?.stop();
});
beforeEach(async () => {
  await client().flushdb();
});

describe('RedisRateLimiter', () => {
  it('holds three daemons sharing a 50 req/s host bucket to 50 req/s together', async () => {
    const rules = [{ hosts: '*.example.com', ratePerSec: 50, burst: 5 }];
    const limiters = [0, 1, 2].map(() => new RedisRateLimiter({ client: client(), rules }, systemClock));
    const start = Date.now();
    const until = start + 3_000;
    const counts = await Promise.all(limiters.map((l) => hammer(l, 'shop.example.com', until)));
    const total = counts.reduce((a, b) => a + b, 0);
    const rate = total / ((Date.now() - start) / 1000);
    expect(rate, `admitted ${counts.join(' + ')} = ${total} (${rate.toFixed(1)}/s)`).toBeLessThanOrEqual(
      1.1 * 50,
    );
    // Every daemon got tokens: they are handed out in batches, not to one daemon only. (How
    // close to 50/s a loaded machine gets is no behaviour: the limiter's job is the ceiling.)
    for (const n of counts) expect(n).toBeGreaterThan(0);
  });

  it('applies the global bucket across hosts and leaves hosts without a rule to it alone', async () => {
    const limiters = [0, 1].map(
      () => new RedisRateLimiter({ client: client(), global: { ratePerSec: 40, burst: 4 } }, systemClock),
    );
    const rate = await globalRate(limiters);
    expect(rate).toBeLessThanOrEqual(1.1 * 40);
    expect(rate).toBeGreaterThan(0);
  });

  it('admits keys matching no rule without asking Redis, and tryAcquire waits for the first fetch', async () => {
    const limiter = new RedisRateLimiter(
      { client: client(), rules: [{ hosts: 'slow.example', ratePerSec: 1, burst: 2 }] },
      systemClock,
    );
    expect(limiter.take('free.example')).toEqual({ ok: true, waitMs: 0 });
    expect(limiter.take('slow.example').ok).toBe(false); // cache empty: fetch started
    expect(await limiter.tryAcquire('slow.example')).toEqual({ ok: true, waitMs: 0 });
    expect(await limiter.tryAcquire('slow.example')).toEqual({ ok: true, waitMs: 0 });
    const third = await limiter.tryAcquire('slow.example');
    expect(third.ok).toBe(false);
    expect(third.waitMs).toBeGreaterThan(500);
    expect(third.waitMs).toBeLessThanOrEqual(1_000);
    expect(() => limiter.take('slow.example', 3)).toThrow(/burst/);
  });

  it('fails closed while Redis is unreachable and reports the error', async () => {
    const errors: unknown[] = [];
    const dead = new Redis({
      port: 1,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    dead.on('error', () => {});
    const limiter = new RedisRateLimiter(
      {
        client: dead,
        rules: [{ hosts: '*', ratePerSec: 10 }],
        errorBackoffMs: 500,
        onError: (e) => errors.push(e),
      },
      systemClock,
    );
    expect((await limiter.tryAcquire('x.example')).ok).toBe(false);
    expect(errors.length).toBe(1);
    const again = limiter.take('x.example');
    expect(again.ok).toBe(false);
    expect(again.waitMs).toBeGreaterThan(400);
    dead.disconnect();
  });
});
