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
import type { LeaseOptions, Task } from '../../ports/frontier.js';
import { batch, execAll, type RedisLike, script } from './redis-client.js';
import { lastSnapshot, planLease, type Snapshot, type TaskRow, toTaskRow } from './redis-codec.js';
import type { RedisKeys } from './redis-keys.js';
import { publish } from './redis-read.js';

export async function leaseTasks(
  c: RedisLike,
  keys: RedisKeys,
  now: number,
  options: LeaseOptions,
  scanHosts: number,
): Promise<Task[]> {
  const exclude = options.excludeHosts ?? new Set<string>();
  const scan = Math.min(options.max + exclude.size, scanHosts);
  const { ready, due } = await readIndex(c, keys, now, scan, scanHosts);
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
    const pipe = batch(c);
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
  const token = randomUUID();
  const pipe = batch(c);
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
    const pub = batch(c);
    for (const [host, snap] of after) publish(pub, keys, host, snap);
    await execAll(pub);
  }
  return rows.sort((a, b) => a.score - b.score).map((r) => r.task);
}

/**
 * The first `scan` hosts of the ready index (by their best task's score) and the hosts
 * whose due time has come. With several index buckets (Cluster) each bucket's first `scan`
 * are read and merged by score: the global first `scan` are among them, so lease() keeps
 * exact priority-then-FIFO order across hosts whatever the bucket count.
 */
async function readIndex(
  c: RedisLike,
  keys: RedisKeys,
  now: number,
  scan: number,
  dueLimit: number,
): Promise<{ ready: string[]; due: string[] }> {
  const pipe = batch(c);
  const withScores = keys.buckets.length > 1;
  for (const b of keys.buckets) {
    if (withScores) pipe.zrange(b.ready, 0, scan - 1, 'WITHSCORES');
    else pipe.zrange(b.ready, 0, scan - 1);
    pipe.zrangebyscore(b.due, '-inf', now, 'LIMIT', 0, dueLimit);
  }
  const replies = (await execAll(pipe)) as string[][];
  if (!withScores) return { ready: replies[0]!, due: replies[1]! };
  const ready: { host: string; score: number }[] = [];
  const due: string[] = [];
  for (let i = 0; i < replies.length; i += 2) {
    const flat = replies[i]!;
    for (let j = 0; j < flat.length; j += 2) ready.push({ host: flat[j]!, score: Number(flat[j + 1]) });
    due.push(...replies[i + 1]!);
  }
  ready.sort((a, b) => a.score - b.score);
  return { ready: ready.slice(0, scan).map((r) => r.host), due: due.slice(0, dueLimit) };
}
