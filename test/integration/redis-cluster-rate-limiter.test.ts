/**
 * RedisRateLimiter on a real three-master Redis Cluster (ioredis Cluster clients, as the
 * daemon builds them for frontier kind redis-cluster): host buckets on their hosts' slots and
 * the global bucket on `{prefix}` hold several daemons to the shared rate together.
 */
import { Cluster } from 'ioredis';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { RedisRateLimiter } from '../../src/adapters/rate/redis-rate-limiter.js';
import { clusterOptions, parseNode } from '../../src/adapters/redis/redis-client.js';
import { systemClock } from '../../src/core/clock.js';
import { globalRate, hammer } from '../helpers/rate-hammer.js';
import { type RedisClusterServer, startRedisCluster } from '../helpers/redis-cluster.js';

let cluster: RedisClusterServer;
const clients: Cluster[] = [];
const client = async () => {
  const c = new Cluster(cluster.nodes.map(parseNode), clusterOptions);
  clients.push(c);
  await c.connect();
  return c;
};

beforeAll(async () => {
  cluster = await startRedisCluster();
}, 60_000);
afterAll(async () => {
  for (const c of clients) await c.quit();
  await cluster?.stop();
});
beforeEach(async () => {
  await cluster.flush();
});

it('holds three daemons sharing host buckets on different shards to each host rate', async () => {
  const rules = [{ hosts: '*', ratePerSec: 30, burst: 3 }];
  const limiters = await Promise.all(
    [0, 1, 2].map(async () => new RedisRateLimiter({ client: await client(), rules }, systemClock)),
  );
  const hosts = ['a.example', 'b.example', 'c.example', 'd.example'];
  const start = Date.now();
  const until = start + 2_500;
  const counts = await Promise.all(hosts.flatMap((h) => limiters.map((l) => hammer(l, h, until))));
  const seconds = (Date.now() - start) / 1000;
  for (const [i, h] of hosts.entries()) {
    const total = counts.slice(i * 3, i * 3 + 3).reduce((a, b) => a + b, 0);
    expect(total / seconds, `${h}: ${total} in ${seconds} s`).toBeLessThanOrEqual(1.1 * 30 + 3 / seconds);
    expect(total).toBeGreaterThan(0);
  }
  // The host buckets really live on several masters.
  const perNode = await cluster.keysPerNode();
  expect(perNode.filter((keys) => keys.some((k) => k.endsWith(':rate'))).length).toBeGreaterThan(1);
});

it('applies the global bucket across hosts and daemons', async () => {
  const limiters = await Promise.all(
    [0, 1].map(
      async () =>
        new RedisRateLimiter({ client: await client(), global: { ratePerSec: 40, burst: 4 } }, systemClock),
    ),
  );
  const rate = await globalRate(limiters);
  expect(rate).toBeLessThanOrEqual(1.1 * 40);
  expect(rate).toBeGreaterThan(0);
});
