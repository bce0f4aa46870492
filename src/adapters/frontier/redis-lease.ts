/**
 * lease() of the Redis frontier. The global ready index (host → score of its best task)
 * orders hosts; the global top `max` tasks lie in the first `max` ready hosts, so lease()
 * reads that many (plus the hosts whose delayed tasks or leases fell due), PEEKs each
 * host's best `max` entries in one pipelined round trip, merges them by score (priority,
 * then FIFO across hosts), and LEASEs each host's share with one script per host, again
 * pipelined. Four round trips whatever the number of hosts; with one candidate host the
 * PEEK is skipped. Every script touches one host's slot; only the index reads and the
 * PUBLISH scripts touch the global slot.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { LeaseOptions, Task } from '../../ports/frontier.js';
import { execAll, script } from './redis-client.js';
import { lastSnapshot, planLease, type Snapshot, type TaskRow, toTaskRow } from './redis-codec.js';
import type { RedisKeys } from './redis-keys.js';
import { publish } from './redis-read.js';

export async function leaseTasks(
  c: Redis,
  keys: RedisKeys,
  now: number,
  options: LeaseOptions,
  scanHosts: number,
): Promise<Task[]> {
  const g = keys.global;
  const exclude = options.excludeHosts ?? new Set<string>();
  const scan = Math.min(options.max + exclude.size, scanHosts);
  const [ready, due] = (await execAll(
    c
      .pipeline()
      .zrange(g.ready, 0, scan - 1)
      .zrangebyscore(g.due, '-inf', now, 'LIMIT', 0, scanHosts),
  )) as [string[], string[]];
  // The global top `max` tasks lie in the first `max` ready hosts; due hosts may have
  // tasks that became ready (or leases that expired) since their last publish.
  const hosts = [...new Set([...ready.filter((h) => !exclude.has(h)).slice(0, options.max), ...due])].filter(
    (h) => !exclude.has(h),
  );
  if (hosts.length === 0) return [];
  let plan: Map<string, { count: number; bound: number | string }>;
  const snaps: [string, Snapshot][] = [];
  if (hosts.length === 1) {
    plan = new Map([[hosts[0]!, { count: options.max, bound: '+inf' }]]);
  } else {
    const pipe = c.pipeline();
    // The host ranked k in the index (by its best task) can hold at most max - k of the
    // global top max: capping each PEEK so halves what the round trip reads.
    const rank = new Map(ready.filter((h) => !exclude.has(h)).map((h, k) => [h, k]));
    for (const host of hosts) {
      const limit = Math.max(1, options.max - (rank.get(host) ?? 0));
      script(pipe, 'crawldPeek', keys.hostList(host), [now, limit]);
    }
    const peeked = (await execAll(pipe)) as unknown[][];
    for (const [i, host] of hosts.entries()) snaps.push([host, lastSnapshot(peeked[i])]);
    plan = planLease(new Map(hosts.map((h, i) => [h, peeked[i]![0] as string[]])), options.max);
  }
  // What the daemon can start soon, per host: the rest stays for the other daemons.
  if (options.maxPerHost) {
    for (const [host, p] of plan) {
      const room = Math.floor(options.maxPerHost(host));
      if (room <= 0) plan.delete(host);
      else p.count = Math.min(p.count, room);
    }
  }
  const token = randomUUID();
  const pipe = c.pipeline();
  for (const [host, p] of plan) {
    script(pipe, 'crawldLease', keys.hostList(host), [
      now,
      p.count,
      p.bound,
      now + options.leaseMs,
      options.owner,
      token,
    ]);
  }
  for (const [host, snap] of snaps) publish(pipe, keys, host, snap);
  const out = await execAll(pipe);
  const rows: TaskRow[] = [];
  const after: [string, Snapshot][] = [];
  for (const [i, host] of [...plan.keys()].entries()) {
    const reply = out[i] as unknown[];
    for (const row of reply[0] as unknown[]) rows.push(toTaskRow(host, row));
    after.push([host, lastSnapshot(reply)]);
  }
  if (after.length > 0) {
    const pub = c.pipeline();
    for (const [host, snap] of after) publish(pub, keys, host, snap);
    await execAll(pub);
  }
  return rows.sort((a, b) => a.score - b.score).map((r) => r.task);
}
