/**
 * The whole frontier contract suite on a real three-master Redis Cluster (ioredis Cluster
 * client, the index split into buckets over the shards), plus what only a cluster shows:
 * a many-host crawl's keys spread over every master.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisKeys } from '../../src/adapters/frontier/redis/keys.js';
import { RedisFrontier } from '../../src/adapters/frontier/redis/redis-frontier.js';
import { FakeClock } from '../../src/core/clock.js';
import { lease, req, url } from '../helpers/frontier-contract.js';
import { type RedisClusterServer, startRedisCluster, waitClusterOk } from '../helpers/redis-cluster.js';
import { waitFor } from '../helpers/wait.js';
import { frontierContract } from './frontier-contract.js';

let cluster: RedisClusterServer;

beforeAll(async () => {
  // AOF on: one case stops a master and needs its data back.
  cluster = await startRedisCluster({ persistent: true });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
});

// Each case gets empty masters; cases run one after another within this file.
frontierContract('redis-cluster', async (clock, opts) => {
  await cluster.flush();
  const frontier = new RedisFrontier({ nodes: cluster.nodes, clock, ...opts });
  return { frontier, cleanup: () => frontier.close() };
});

describe('redis cluster frontier specifics', () => {
  it('spreads a many-host crawl over every master: host queues and index buckets alike', async () => {
    await cluster.flush();
    const f = new RedisFrontier({ nodes: cluster.nodes, clock: new FakeClock() });
    await f.open();
    try {
      const hosts = Array.from({ length: 60 }, (_, i) => `h${i}.example`);
      const added = await f.enqueue(
        hosts.flatMap((h) => [req('a', { url: url('a', h) }), req('b', { url: url('b', h) })]),
      );
      expect(added).toEqual({ added: 120, duplicates: 0, dropped: 0 });
      const tasks = await lease(f, 200);
      expect(tasks).toHaveLength(120);
      for (const t of tasks.slice(0, 60)) expect(await f.ack(t)).toBe(true);
      expect(await f.stats()).toMatchObject({ pending: 0, leased: 60, done: 60 });
      const perNode = await cluster.keysPerNode();
      for (const [i, keys] of perNode.entries()) {
        const hostKeys = keys.filter((k) => /^crawld:\{h\d+\.example\}:/.test(k));
        const indexKeys = keys.filter((k) => /^\{crawld:\d+\}:/.test(k));
        expect(hostKeys.length, `host keys on master ${cluster.nodes[i]}`).toBeGreaterThan(0);
        expect(indexKeys.length, `index buckets on master ${cluster.nodes[i]}`).toBeGreaterThan(0);
      }
    } finally {
      await f.close();
    }
  });

  it('a publish that fails (its index shard down) is retried: the ack counts, the totals converge', async () => {
    await cluster.flush();
    const clock = new FakeClock();
    const f = new RedisFrontier({ nodes: cluster.nodes, clock });
    await f.open();
    try {
      const hosts = Array.from({ length: 40 }, (_, i) => `p${i}.example`);
      await f.enqueue(hosts.map((h) => req('a', { url: url('a', h) })));
      const tasks = await lease(f, 40);
      expect(tasks).toHaveLength(40);
      // A host whose queues and index bucket sit on different masters.
      const perNode = await cluster.keysPerNode();
      const nodeOf = (key: string) => perNode.findIndex((keys) => keys.includes(key));
      const keys = new RedisKeys('crawld', 16);
      const task = tasks.find((t) => nodeOf(keys.host(t.host).tasks) !== nodeOf(keys.index(t.host).snap))!;
      const bucketNode = cluster.servers[nodeOf(keys.index(task.host).snap)]!;
      await bucketNode.pause();
      try {
        // The host script runs on its own master; only the publish fails. Well under
        // cluster-node-timeout (2 s): the other masters keep serving.
        expect(await f.ack(task)).toBe(true);
      } finally {
        await bucketNode.resume();
        await waitClusterOk(cluster.servers.map((s) => s.port));
      }
      clock.advance(1_000); // the republish timer
      await waitFor(async () => (await f.stats()).done === 1, {
        what: 'the task done on the cluster',
        deadlineMs: 15_000,
        every: 100,
      });
      expect(await f.stats()).toMatchObject({ leased: 39, done: 1 });
    } finally {
      await f.close();
    }
  }, 60_000);
});
