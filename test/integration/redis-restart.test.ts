/**
 * The Redis frontier across a Redis restart (with AOF persistence): calls during the outage
 * reject with RedisUnavailableError (retryable), ioredis reconnects by itself, and nothing
 * enqueued or leased before the restart is lost.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisFrontier } from '../../src/adapters/frontier/redis/redis-frontier.js';
import { RedisUnavailableError } from '../../src/adapters/redis/redis-client.js';
import { FakeClock } from '../../src/core/clock.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis({ persistent: true });
});
afterAll(async () => {
  await server?.stop();
});

const url = (i: number, host = 'shop.example') => `http://${host}/p/${i}`;

it('survives a Redis restart: outage errors are RedisUnavailableError, no task is lost', async () => {
  const clock = new FakeClock();
  const f = new RedisFrontier({ url: server.url, clock });
  await f.open();
  const requests = Array.from({ length: 200 }, (_, i) => ({
    url: url(i, i % 2 ? 'shop.example' : 'blog.example'),
    jobId: 'j',
    priority: i % 3,
  }));
  expect(await f.enqueue(requests)).toEqual({ added: 200, duplicates: 0, dropped: 0 });
  const leased = await f.lease({ max: 10, leaseMs: 60_000, owner: 'w1' });
  expect(leased).toHaveLength(10);
  const done = leased.slice(0, 5);
  for (const t of done) expect(await f.ack(t)).toBe(true);
  const before = await f.stats();

  await server.pause();
  // Rejects, does not hang (a hang would reach the test's timeout).
  const outage = await f.stats().catch((err: unknown) => err);
  expect(outage).toBeInstanceOf(RedisUnavailableError);
  expect((outage as RedisUnavailableError).retryable).toBe(true);
  await expect(f.enqueue([{ url: url(999), jobId: 'j' }])).rejects.toBeInstanceOf(RedisUnavailableError);

  await server.resume();
  // ioredis reconnects in the background; the first calls may still see the reconnect.
  const after = await waitFor(() => f.stats(), { what: 'stats once reconnected', every: 100 });
  expect(after).toEqual(before);
  expect(before).toMatchObject({ pending: 190, leased: 5, done: 5 });

  // Leases taken before the restart are still valid, and the queue carries on.
  for (const t of leased.slice(5)) expect(await f.ack(t)).toBe(true);
  expect(await f.enqueue([{ url: url(0, 'blog.example'), jobId: 'j' }])).toMatchObject({ duplicates: 1 });
  const rest = await f.lease({ max: 500, leaseMs: 60_000, owner: 'w1' });
  expect(rest).toHaveLength(190);
  const seen = new Set([...leased, ...rest].map((t) => t.url));
  expect(seen.size).toBe(200);
  await f.close();
});
