/**
 * RetryingFrontier over a real RedisFrontier across a redis-server restart: an ack issued
 * while Redis is down completes once it is back (the page is not fetched again after the
 * lease expires), and giveUp() ends the wait at once (shutdown).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisUnavailableError } from '../../src/adapters/frontier/redis/client.js';
import { RedisFrontier } from '../../src/adapters/frontier/redis/frontier.js';
import { systemClock } from '../../src/core/clock.js';
import { RetryingFrontier } from '../../src/engine/retrying-frontier.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis({ persistent: true });
});
afterAll(async () => {
  await server?.stop();
});

it('waits out an outage on ack, and gives up at once when told to', async () => {
  const inner = new RedisFrontier({ url: server.url, clock: systemClock, keyPrefix: 'retrying' });
  const f = new RetryingFrontier(inner, { clock: systemClock, maxWaitMs: 20_000 });
  await f.open();
  await f.enqueue([0, 1].map((i) => ({ url: `http://a.example/${i}`, jobId: 'j' })));
  const [t0, t1] = await f.lease({ max: 2, leaseMs: 60_000, owner: 'w' });

  await server.pause();
  let settled = false;
  const ack = f.ack(t0!).finally(() => {
    settled = true;
  });
  await new Promise((r) => setTimeout(r, 1_500));
  expect(settled).toBe(false); // still waiting, not failed
  await server.resume();
  expect(await ack).toBe(true);
  expect(await f.stats()).toMatchObject({ leased: 1, done: 1 });

  await server.pause();
  const second = f.ack(t1!).catch((err: unknown) => err);
  await new Promise((r) => setTimeout(r, 300));
  f.giveUp();
  expect(await second).toBeInstanceOf(RedisUnavailableError);
  await server.resume();
  await f.close();
});
