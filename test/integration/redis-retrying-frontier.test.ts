/**
 * RetryingFrontier over a real RedisFrontier across a redis-server restart: an ack issued
 * while Redis is down completes once it is back (the page is not fetched again after the
 * lease expires), and giveUp() ends the wait at once (shutdown).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisFrontier } from '../../src/adapters/frontier/redis/redis-frontier.js';
import { RedisUnavailableError } from '../../src/adapters/redis/redis-client.js';
import { systemClock } from '../../src/core/clock.js';
import { RetryingFrontier } from '../../src/engine/recovery/retrying-frontier.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

/** A RedisFrontier that counts the acks Redis failed (each one the RetryingFrontier tried). */
class CountingFrontier extends RedisFrontier {
  failedAcks = 0;
  override async ack(...args: Parameters<RedisFrontier['ack']>): Promise<boolean> {
    try {
      return await super.ack(...args);
    } catch (err) {
      this.failedAcks++;
      throw err;
    }
  }
}

let server: RedisServer;
beforeAll(async () => {
  server = await startRedis({ persistent: true });
});
afterAll(async () => {
  await server?.stop();
});

it('waits out an outage on ack, and gives up at once when told to', async () => {
  const inner = new CountingFrontier({ url: server.url, clock: systemClock, keyPrefix: 'retrying' });
  const f = new RetryingFrontier(inner, { clock: systemClock, maxWaitMs: 20_000 });
  await f.open();
  await f.enqueue([0, 1].map((i) => ({ url: `http://a.example/${i}`, jobId: 'j' })));
  const [t0, t1] = await f.lease({ max: 2, leaseMs: 60_000, owner: 'w' });

  await server.pause();
  let settled = false;
  const ack = f.ack(t0!).finally(() => {
    settled = true;
  });
  await waitFor(() => inner.failedAcks >= 2, 'the ack to fail twice against the stopped Redis');
  expect(settled).toBe(false); // still waiting, not failed
  await server.resume();
  expect(await ack).toBe(true);
  expect(await f.stats()).toMatchObject({ leased: 1, done: 1 });

  await server.pause();
  const failedBefore = inner.failedAcks;
  const second = f.ack(t1!).catch((err: unknown) => err);
  // Failed once: it waits to try again when told to give up.
  await waitFor(() => inner.failedAcks > failedBefore, 'the second ack to fail once');
  f.giveUp();
  expect(await second).toBeInstanceOf(RedisUnavailableError);
  await server.resume();
  await f.close();
});
