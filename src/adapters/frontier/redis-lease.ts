/**
 * lease() of the Redis frontier. The global ready index (host → score of its best task)
 * orders hosts; the global top `max` tasks lie in the first `max` ready hosts, so lease()
 * reads that many (plus the hosts whose delayed tasks or leases fell due), PEEKs each
 * host's best `max` entries, merges them by score (priority, then FIFO across hosts), and
 * LEASEs each host's share; the PEEKs, then the LEASEs, go as one batched script call
 * (redis-batch.ts; one per host on a Cluster). Four round trips whatever the number of
 * hosts; with one candidate host the PEEK is skipped. Every script touches one host's slot; only the index reads and the
 * PUBLISH scripts touch the global slot.
 */
import { randomUUID } from 'node:crypto';
import type { LeaseOptions, Task } from '../../ports/frontier.js';
import { batch, execAll, type RedisLike, type ScriptArg } from './redis-client.js';
import { lastSnapshot, planLease, type Snapshot, type TaskRow, toTaskRow } from './redis-codec.js';
import type { RedisKeys } from './redis-keys.js';
import type { BatchOp } from './redis-lua.js';

/** What lease() needs from the frontier: its connection, key layout, batched host operations and publish. */
export interface LeaseContext {
  readonly client: RedisLike;
  readonly keys: RedisKeys;
  readonly call: (host: string, op: BatchOp, args: readonly ScriptArg[]) => Promise<unknown[]>;
  readonly publish: (snaps: readonly (readonly [string, Snapshot])[]) => Promise<void>;
}

export async function leaseTasks(
  ctx: LeaseContext,
  now: number,
  options: LeaseOptions,
  scanHosts: number,
): Promise<Task[]> {
  const exclude = options.excludeHosts ?? new Set<string>();
  const scan = Math.min(options.max + exclude.size, scanHosts);
  const { ready, due } = await readIndex(ctx.client, ctx.keys, now, scan, scanHosts);
  // The global top `max` tasks lie in the first `max` ready hosts; due hosts may have
  // tasks that became ready (or leases that expired) since their last publish.
  const best = ready.filter((r) => !exclude.has(r.host)).slice(0, options.max);
  const hosts = [...new Set([...best.map((r) => r.host), ...due])].filter((h) => !exclude.has(h));
  if (hosts.length === 0) return [];
  let plan: Map<string, { count: number; bound: number | string }>;
  const snaps: [string, Snapshot][] = [];
  // A host just PEEKed was refreshed (due tasks promoted, expired leases taken back) in this
  // same lease(): its LEASE skips that work (two range reads per host). What fell due in the
  // round trip between them is taken by the next lease().
  const peeked = hosts.length === 1 ? 0 : 1;
  if (hosts.length === 1) {
    plan = new Map([[hosts[0]!, { count: options.max, bound: '+inf' }]]);
  } else {
    // The host ranked k in the index (by its best task) can hold at most max - k of the global
    // top max, and none of them scores worse than the max-th host's best (those max hosts
    // hold max tasks at least that good): with many hosts each PEEK returns a task or two,
    // not max. A stale index costs at most a lease of fewer tasks than max.
    const ranked = ready.filter((r) => !exclude.has(r.host));
    const rank = new Map(ranked.map((r, k) => [r.host, k]));
    const bound = ranked.length >= options.max ? String(ranked[options.max - 1]!.score) : '+inf';
    const peeked = await Promise.all(
      hosts.map((host) =>
        ctx.call(host, 'peek', [now, Math.max(1, options.max - (rank.get(host) ?? 0)), bound]),
      ),
    );
    for (const [i, host] of hosts.entries()) {
      const snap = peeked[i]![1];
      if (snap) snaps.push([host, snap as Snapshot]);
    }
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
  const leased = await Promise.all(
    [...plan].map(([host, p]) =>
      ctx.call(host, 'lease', [now, p.count, p.bound, now + options.leaseMs, options.owner, token, peeked]),
    ),
  );
  const rows: TaskRow[] = [];
  for (const [i, host] of [...plan.keys()].entries()) {
    const reply = leased[i]!;
    for (const row of reply[0] as unknown[]) rows.push(toTaskRow(host, row));
    snaps.push([host, lastSnapshot(reply)]);
  }
  // The newest snapshot of each host wins in publish, so the PEEK ones cost nothing extra.
  await ctx.publish(snaps);
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
): Promise<{ ready: { host: string; score: number }[]; due: string[] }> {
  const pipe = batch(c);
  for (const b of keys.buckets) {
    pipe.zrange(b.ready, 0, scan - 1, 'WITHSCORES');
    pipe.zrangebyscore(b.due, '-inf', now, 'LIMIT', 0, dueLimit);
  }
  const replies = (await execAll(pipe)) as string[][];
  const ready: { host: string; score: number }[] = [];
  const due: string[] = [];
  for (let i = 0; i < replies.length; i += 2) {
    const flat = replies[i]!;
    for (let j = 0; j < flat.length; j += 2) ready.push({ host: flat[j]!, score: Number(flat[j + 1]) });
    due.push(...replies[i + 1]!);
  }
  if (keys.buckets.length > 1) ready.sort((a, b) => a.score - b.score);
  return { ready: ready.slice(0, scan), due: due.slice(0, dueLimit) };
}
