/**
 * lease() of the Redis frontier: the global top `max` tasks lie in the first `max` hosts of the
 * ready index (plus the due hosts). One Redis: a TAKE script merges and leases them (one or two
 * round trips). Cluster (a script touches one slot): PEEK each host, merge here, LEASE each
 * host's share, publish (four round trips).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { LeaseOptions, Task } from '../../../ports/frontier.js';
import { batch, execAll, type RedisLike, type ScriptArg, script } from '../../redis/redis-client.js';
import type { RedisKeys } from './keys.js';
import { REPLY, type Snapshot, snapshotOf, type TaskRow, toTakeTasks, toTaskRow } from './replies.js';
import type { BatchOp } from './scripts.js';

/** What lease() needs from the frontier: its connection, key layout, batched host operations and publish. */
export interface LeaseContext {
  readonly client: RedisLike;
  readonly keys: RedisKeys;
  readonly call: (host: string, op: BatchOp, args: readonly ScriptArg[]) => Promise<unknown[]>;
  readonly publish: (snaps: readonly (readonly [string, Snapshot])[]) => Promise<void>;
  readonly single: boolean;
}

/** A candidate host: how many of its best tasks it may give; due: refresh it first. */
interface Candidate {
  readonly host: string;
  limit: number;
  readonly due: boolean;
}

export async function leaseTasks(
  ctx: LeaseContext,
  now: number,
  options: LeaseOptions,
  scanHosts: number,
): Promise<Task[]> {
  const exclude = options.excludeHosts ?? new Set<string>();
  // No per-host caps to ask the caller about: on one Redis the TAKE script reads the index too.
  if (ctx.single && !options.maxPerHost) return takeFromIndex(ctx, now, options, scanHosts);
  const scan = Math.min(options.max + exclude.size, scanHosts);
  const { ready, due } = await readIndex(ctx.client, ctx.keys, now, scan, scanHosts);
  // Due hosts may hold tasks that fell due (or expired leases) since their last publish.
  const ranked = ready.filter((r) => !exclude.has(r.host));
  const best = ranked.slice(0, options.max);
  const hosts = [...new Set([...best.map((r) => r.host), ...due])].filter((h) => !exclude.has(h));
  // One Redis: TAKE even without candidates: it takes expired leases back (not in the index).
  if (hosts.length === 0)
    return ctx.single ? take(ctx, now, options, [], '+inf', leaseToken(options.owner)) : [];
  // The host ranked k can hold at most max - k of the global top max, none worse than the
  // max-th host's best. A stale index costs at most a lease of fewer tasks than max.
  const rank = new Map(ranked.map((r, k) => [r.host, k]));
  const single = hosts.length === 1;
  const bound = !single && ranked.length >= options.max ? String(ranked[options.max - 1]!.score) : '+inf';
  const dueSet = new Set(due);
  const candidates: Candidate[] = hosts.map((host) => ({
    host,
    limit: single ? options.max : Math.max(1, options.max - (rank.get(host) ?? 0)),
    due: dueSet.has(host),
  }));
  // What the daemon can start soon; the rest stays for the other daemons.
  if (options.maxPerHost) {
    for (const c of candidates)
      c.limit = Math.max(0, Math.min(c.limit, Math.floor(options.maxPerHost(c.host))));
  }
  const token = leaseToken(options.owner);
  if (ctx.single) return take(ctx, now, options, candidates, bound, token);
  return peekAndLease(ctx, now, options, candidates, bound, token);
}

/** Single Redis: one TAKE call (lua/take.lua) picks, leases and indexes. */
async function take(
  ctx: LeaseContext,
  now: number,
  options: LeaseOptions,
  candidates: readonly Candidate[],
  bound: string,
  token: string,
): Promise<Task[]> {
  const used = candidates.filter((c) => c.limit > 0 || c.due);
  const keys = used.map((c) => ctx.keys.host(c.host).tasks);
  keys.push(...ctx.keys.singleList());
  const args: ScriptArg[] = [
    now,
    options.max,
    bound,
    now + options.leaseMs,
    options.owner,
    token,
    used.length,
  ];
  for (const c of used) args.push(c.limit, c.due ? 1 : 0);
  return runTake(ctx, keys, args);
}

/** Single Redis, no per-host caps: one TAKE that also reads the index. */
function takeFromIndex(
  ctx: LeaseContext,
  now: number,
  options: LeaseOptions,
  scanHosts: number,
): Promise<Task[]> {
  const exclude = [...(options.excludeHosts ?? [])];
  const args: ScriptArg[] = [
    now,
    options.max,
    '+inf',
    now + options.leaseMs,
    options.owner,
    leaseToken(options.owner),
  ];
  args.push(-1, scanHosts, ctx.keys.prefix, ...exclude);
  return runTake(ctx, ctx.keys.singleList(), args);
}

async function runTake(
  ctx: LeaseContext,
  keys: readonly string[],
  args: readonly ScriptArg[],
): Promise<Task[]> {
  // Buffers: the records come back as stored (msgpack), decoded once by toTakeTasks.
  const reply = await script(ctx.client, 'crawldTakeBuffer', [], [keys.length, ...keys, ...args]);
  return toTakeTasks(reply, Number(args[3]), String(args[5]));
}

/** Cluster: PEEK every candidate, merge here, LEASE each host's share, publish the snapshots. */
async function peekAndLease(
  ctx: LeaseContext,
  now: number,
  options: LeaseOptions,
  candidates: readonly Candidate[],
  bound: string,
  token: string,
): Promise<Task[]> {
  const snaps: [string, Snapshot][] = [];
  let plan: Map<string, { count: number; bound: number | string }>;
  // A host just PEEKed was refreshed: its LEASE skips that work (the next lease() takes what fell due).
  const peeked = candidates.length === 1 ? 0 : 1;
  if (candidates.length === 1) {
    plan = new Map([[candidates[0]!.host, { count: options.max, bound: '+inf' }]]);
  } else {
    const replies = await Promise.all(
      candidates.map((c) => ctx.call(c.host, 'peek', [now, Math.max(1, c.limit), bound])),
    );
    for (const [i, c] of candidates.entries()) {
      const snap = replies[i]![REPLY.peek.snapshot];
      if (snap) snaps.push([c.host, snap as Snapshot]);
    }
    const tops = candidates.map((c, i) => [c.host, replies[i]![REPLY.peek.top] as string[]] as const);
    plan = planLease(new Map(tops), options.max);
  }
  for (const c of candidates) {
    const p = plan.get(c.host);
    if (!p) continue;
    if (c.limit <= 0) plan.delete(c.host);
    else p.count = Math.min(p.count, c.limit);
  }
  const leased = await Promise.all(
    [...plan].map(([host, p]) =>
      ctx.call(host, 'lease', [now, p.count, p.bound, now + options.leaseMs, options.owner, token, peeked]),
    ),
  );
  const rows: TaskRow[] = [];
  for (const [i, host] of [...plan.keys()].entries()) {
    const reply = leased[i]!;
    for (const row of reply[REPLY.lease.rows] as unknown[]) rows.push(toTaskRow(host, row));
    snaps.push([host, snapshotOf('lease', reply)]);
  }
  await ctx.publish(snaps);
  return rows.sort((a, b) => a.score - b.score).map((r) => r.task);
}

/**
 * How many of the global top `max` (by score) each host gives, from each host's best entries
 * (suffix, score, ...). `bound`: the worst score planned, so a host changed meanwhile gives no worse.
 */
function planLease(
  tops: ReadonlyMap<string, readonly string[]>,
  max: number,
): Map<string, { count: number; bound: number | string }> {
  const all: { host: string; score: number }[] = [];
  for (const [host, flat] of tops) {
    for (let i = 1; i < flat.length; i += 2) all.push({ host, score: Number(flat[i]) });
  }
  all.sort((a, b) => a.score - b.score);
  const plan = new Map<string, { count: number; bound: number | string }>();
  for (const { host, score } of all.slice(0, max)) {
    const p = plan.get(host);
    if (p) {
      p.count++;
      p.bound = score;
    } else plan.set(host, { count: 1, bound: score });
  }
  return plan;
}

/** The first `scan` ready hosts by score and the due hosts; with several buckets, each bucket's
 *  first `scan` merged (the global first `scan` are among them). */
async function readIndex(
  c: RedisLike,
  keys: RedisKeys,
  now: number,
  scan: number,
  dueLimit: number,
): Promise<{ ready: { host: string; score: number }[]; due: string[] }> {
  let replies: string[][];
  if (keys.buckets.length === 1) {
    // One Redis: two commands, without the cost of a pipeline object.
    const b = keys.buckets[0]!;
    replies = await Promise.all([
      c.zrange(b.ready, 0, scan - 1, 'WITHSCORES'),
      c.zrangebyscore(b.due, '-inf', now, 'LIMIT', 0, dueLimit),
    ]);
  } else {
    const pipe = batch(c);
    for (const b of keys.buckets) {
      pipe.zrange(b.ready, 0, scan - 1, 'WITHSCORES');
      pipe.zrangebyscore(b.due, '-inf', now, 'LIMIT', 0, dueLimit);
    }
    replies = (await execAll(pipe)) as string[][];
  }
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

/** A lease's token starts with its owner's tag: GL (single Redis) stores no owner, and listLeased finds them by it. */
export function ownerTag(owner: string): string {
  return `${createHash('sha1').update(owner).digest('hex').slice(0, 16)}_`;
}

/** 96 random bits in 16 characters (a UUID's 36 went out with every ack and sat in every lease entry). */
function leaseToken(owner: string): string {
  return ownerTag(owner) + randomBytes(12).toString('base64url');
}
