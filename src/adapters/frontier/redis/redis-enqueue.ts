/** enqueue and redrive of the Redis frontier: FIFO seqs from `{prefix}:seq`, one host operation per
 *  host (batch.ts), or on one Redis ENQUEUE_MANY scripts (lua/enqueue-many.lua). */
import { InvalidArgumentError } from '../../../core/errors.js';
import { type EnqueueResult, REDIS_PRIORITY_MAX, REDIS_PRIORITY_MIN } from '../../../ports/frontier.js';
import { batch, execAll, type RedisLike, type ScriptArg, script } from '../../redis/redis-client.js';
import type { PreparedRequest } from '../frontier-common.js';
import type { HostOpBatcher } from './batch.js';
import { packUrl } from './codec.js';
import { encodeEnqueue, hashOf } from './enqueue-wire.js';
import { type RedisKeys, SEQ_LIMIT, splitTaskId } from './keys.js';
import { ENQUEUE_MANY, REPLY, type Snapshot, snapshotOf } from './replies.js';

export interface WriteContext {
  readonly single: boolean;
  readonly keys: RedisKeys;
  readonly ops: HostOpBatcher;
  readonly maxPending: number;
  readonly publish: (snaps: readonly (readonly [string, Snapshot])[]) => Promise<void>;
}

export function checkSeq(end: number): number {
  if (end >= SEQ_LIMIT) throw new InvalidArgumentError(`frontier sequence exhausted (${end} >= 2^41)`);
  return end;
}

/** One round trip for the seqs, the pending count and the host set; then each host's share, one by
 *  one near the bound (each told the room left). */
export async function enqueuePrepared(
  ctx: WriteContext,
  c: RedisLike,
  prepared: readonly PreparedRequest[],
  now: number,
): Promise<EnqueueResult> {
  if (ctx.single) return enqueueSingle(ctx, c, prepared, now);
  const byHost = groupBy(prepared, (r) => r.host);
  const keys = ctx.keys;
  const head = batch(c).incrby(keys.seq, prepared.length);
  for (const b of keys.buckets) head.hget(b.totals, 'n');
  for (const [set, hosts] of groupBy([...byHost.keys()], (h) => keys.index(h).hosts))
    head.sadd(set, ...hosts);
  const [end, ...rest] = await execAll(head);
  const pending = rest.slice(0, keys.buckets.length).reduce((n: number, v) => n + Number(v ?? 0), 0);
  let seq = checkSeq(Number(end)) - prepared.length + 1;
  const argsOf = new Map<string, ScriptArg[]>();
  for (const [host, rs] of byHost) {
    const args: ScriptArg[] = [];
    for (const r of rs) args.push(...recordArgs(r, host), seq++, requestArg(r, host));
    argsOf.set(host, args);
  }
  let room = ctx.maxPending - pending;
  const replies = new Map<string, unknown[]>();
  if (room >= prepared.length) {
    // Nothing can be dropped: every host in one round trip.
    const out = await Promise.all(
      [...argsOf].map(([host, args]) => ctx.ops.call(host, 'enqueue', [now, prepared.length, ...args])),
    );
    for (const [i, host] of [...argsOf.keys()].entries()) replies.set(host, out[i]!);
  } else {
    for (const [host, args] of argsOf) {
      const reply = await ctx.ops.call(host, 'enqueue', [now, Math.max(0, room), ...args]);
      room -= Number(reply[REPLY.enqueue.added]);
      replies.set(host, reply);
    }
  }
  await ctx.publish([...replies].map(([host, reply]) => [host, snapshotOf('enqueue', reply)]));
  const sum = { added: 0, duplicates: 0, dropped: 0 };
  const F = REPLY.enqueue;
  for (const r of replies.values()) {
    sum.added += Number(r[F.added]);
    sum.duplicates += Number(r[F.duplicates]);
    sum.dropped += Number(r[F.dropped]);
  }
  return sum;
}

/** A request's fields as the ENQUEUE operation takes them, in their order (lua/enqueue.lua). */
function recordArgs(r: PreparedRequest, host: string): ScriptArg[] {
  return [hashOf(r), packUrl(r.url, host), r.jobId, r.priority, r.depth, r.notBefore, r.force ? 1 : 0];
}

/** The URL as discovered, when it differs from the dedupe key (else empty). */
function requestArg(r: PreparedRequest, host: string): string {
  return r.requestUrl === undefined ? '' : packUrl(r.requestUrl, host);
}

/** Requests per ENQUEUE_MANY call: bounds one script's run time. */
const MAX_PER_CALL = 2000;
/** The least requests of a part, when a call is sent in parts (enqueueSingle): a call of up
 *  to this many (a page's links) stays one script call. */
const PART = 512;

/**
 * One Redis: ENQUEUE_MANY parts of about a quarter of the call, each sent once encoded so that
 * encoding overlaps Redis's run of the one before; each part atomic, seeing the room left.
 */
async function enqueueSingle(
  ctx: WriteContext,
  c: RedisLike,
  prepared: readonly PreparedRequest[],
  now: number,
): Promise<EnqueueResult> {
  const b = ctx.keys.buckets[0]!;
  const keys = [ctx.keys.seq, b.hosts, ...ctx.keys.singleList()];
  const maxPending = Number.isFinite(ctx.maxPending) ? ctx.maxPending : -1;
  const size = Math.min(MAX_PER_CALL, Math.max(PART, Math.ceil(prepared.length / 4)));
  const sent: Promise<unknown>[] = [];
  let part = new Map<string, PreparedRequest[]>();
  let n = 0;
  const send = () => {
    const [hosts, reqs] = encodeEnqueue(part, n, now);
    sent.push(script(c, 'crawldEnqueueMany', keys, [now, maxPending, n, ctx.keys.prefix, hosts, reqs]));
    part = new Map();
    n = 0;
  };
  // Whole hosts per part (a host's fixed costs once a call), in first-request order.
  for (const [host, rs] of groupBy(prepared, (r) => r.host)) {
    for (let i = 0; i < rs.length; i += MAX_PER_CALL) {
      const piece = rs.length <= MAX_PER_CALL ? rs : rs.slice(i, i + MAX_PER_CALL);
      if (n > 0 && n + piece.length > size) send();
      part.set(host, piece);
      n += piece.length;
    }
  }
  if (n > 0) send();
  const sum = { added: 0, duplicates: 0, dropped: 0 };
  const F = ENQUEUE_MANY;
  for (const reply of (await Promise.all(sent)) as (number | string | null)[][]) {
    if (reply[F.added] === -1) checkSeq(Number(reply[F.lastSeq]));
    if (reply[F.error]) throw new Error(`enqueue script failed: ${reply[F.error]}`);
    sum.added += Number(reply[F.added]);
    sum.duplicates += Number(reply[F.duplicates]);
    sum.dropped += Number(reply[F.dropped]);
  }
  return sum;
}

/** Dead tasks back to ready, in the order of `ids` (FIFO seqs follow it); one host operation per host. */
export async function redriveIds(
  ctx: WriteContext,
  c: RedisLike,
  ids: readonly string[],
  jobId: string,
  now: number,
): Promise<number> {
  const byHost = new Map<string, string[]>();
  for (const id of ids) {
    const parts = splitTaskId(id);
    if (!parts) continue;
    const list = byHost.get(parts.host);
    if (list) list.push(parts.suffix);
    else byHost.set(parts.host, [parts.suffix]);
  }
  if (byHost.size === 0) return 0;
  const total = [...byHost.values()].reduce((n, s) => n + s.length, 0);
  let seq = checkSeq(await c.incrby(ctx.keys.seq, total)) - total + 1;
  const out = await Promise.all(
    [...byHost].map(([host, suffixes]) =>
      ctx.ops.call(host, 'redrive', [now, jobId, ...suffixes.flatMap((s) => [s, seq++])]),
    ),
  );
  await ctx.publish([...byHost.keys()].map((host, i) => [host, snapshotOf('redrive', out[i]!)] as const));
  return out.reduce((n, r) => n + Number(r[REPLY.redrive.moved]), 0);
}

export function checkPriorities(prepared: readonly PreparedRequest[]): void {
  for (const r of prepared) {
    if (r.priority < REDIS_PRIORITY_MIN || r.priority > REDIS_PRIORITY_MAX)
      throw new InvalidArgumentError(
        `priority must be in [${REDIS_PRIORITY_MIN}, ${REDIS_PRIORITY_MAX}], got ${r.priority}`,
      );
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}
