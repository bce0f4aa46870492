/** The read side of the Redis frontier (stats, nextReadyAt, listLeased, listDead) and repair(). */
import type { DeadLetter, FrontierStats, Task } from '../../../ports/frontier.js';
import { batch, execAll, type RedisLike, type ScriptArg, script } from '../../redis/redis-client.js';
import type { RedisKeys } from './keys.js';
import { ownerTag } from './lease.js';
import {
  type DeadRow,
  type Snapshot,
  type TaskRow,
  toDeadRow,
  toHostTaskRows,
  toTaskRow,
} from './replies.js';

/** Queues on `target` the PUBLISH of host snapshots: one script call per index bucket. */
export function publish(
  target: Parameters<typeof script>[0],
  keys: RedisKeys,
  snaps: Iterable<readonly [string, Snapshot]>,
): number {
  const byBucket = new Map<string, { host: string; args: ScriptArg[] }>();
  for (const [host, snap] of snaps) {
    const list = keys.publishList(host);
    const entry = byBucket.get(list[0]!);
    const args = [host, snap.length, ...snap];
    if (entry) entry.args.push(...args);
    else byBucket.set(list[0]!, { host, args });
  }
  for (const { host, args } of byBucket.values())
    script(target, 'crawldPublish', keys.publishList(host), args);
  return byBucket.size;
}

/** The published totals; `delayed` depends on now, so it is counted over the due index's hosts. */
export async function readStats(client: RedisLike, keys: RedisKeys, now: number): Promise<FrontierStats> {
  const pipe0 = batch(client);
  for (const b of keys.buckets) pipe0.hgetall(b.totals).zrange(b.due, 0, -1);
  const replies = await execAll(pipe0);
  const totals: Record<string, number> = {};
  const dueHosts: string[] = [];
  for (let i = 0; i < replies.length; i += 2) {
    for (const [k, v] of Object.entries(replies[i] as Record<string, string>))
      totals[k] = (totals[k] ?? 0) + Number(v);
    dueHosts.push(...(replies[i + 1] as string[]));
  }
  let delayed = 0;
  if (dueHosts.length > 0) {
    const pipe = batch(client);
    for (const host of dueHosts) pipe.zcount(keys.host(host).delayed, `(${now}`, '+inf');
    for (const n of await execAll(pipe)) delayed += Number(n);
  }
  const byPriority = Object.entries(totals)
    .filter(([k, v]) => k.startsWith('p:') && Number(v) !== 0)
    .map(([k, v]) => [Number(k.slice(2)), Number(v)] as const)
    .sort((a, b) => a[0] - b[0]);
  const count = (field: string) => Number(totals[field] ?? 0);
  return {
    pending: count('n'),
    delayed,
    leased: count('l'),
    done: count('f'),
    dead: count('x'),
    pendingByPriority: Object.fromEntries(byPriority.map(([p, n]) => [String(p), n])),
  };
}

/**
 * Now when some host has ready work, else the earliest due time (delayed task or lease
 * expiry; on a single Redis the leases are in their own zset, read with the due index).
 */
export async function readNextReadyAt(
  client: RedisLike,
  keys: RedisKeys,
  now: number,
  single: boolean,
): Promise<number | undefined> {
  const pipe = batch(client);
  for (const b of keys.buckets) pipe.zcard(b.ready).zrange(b.due, 0, 0, 'WITHSCORES');
  if (single) pipe.zrange(keys.leases, 0, 0, 'WITHSCORES');
  const replies = await execAll(pipe);
  const heads: string[][] = single ? [replies.pop() as string[]] : [];
  for (let i = 0; i < replies.length; i += 2) {
    if (Number(replies[i]) > 0) return now;
    heads.push(replies[i + 1] as string[]);
  }
  let next: number | undefined;
  for (const head of heads)
    if (head[1] !== undefined && (next === undefined || Number(head[1]) < next)) next = Number(head[1]);
  return next;
}

/** The members of one host set (dead or leased hosts) over every index bucket. */
async function hostSet(client: RedisLike, keys: RedisKeys, which: 'deadHosts' | 'leasedHosts') {
  const pipe = batch(client);
  for (const b of keys.buckets) pipe.smembers(b[which]);
  return (await execAll(pipe)).flat() as string[];
}

/** `owner`: only that owner's leases ('' for all). */
export async function readLeased(
  client: RedisLike,
  keys: RedisKeys,
  single: boolean,
  owner: string,
): Promise<Task[]> {
  if (single) {
    const reply = await script(
      client,
      'crawldListLeasedAll',
      [keys.leases],
      [keys.prefix, owner === '' ? '' : ownerTag(owner)],
    );
    return sortLeased(toHostTaskRows(reply));
  }
  const hosts = await hostSet(client, keys, 'leasedHosts');
  if (hosts.length === 0) return [];
  const pipe = batch(client);
  for (const host of hosts) script(pipe, 'crawldListLeased', keys.hostList(host), [owner]);
  const replies = await execAll(pipe);
  return sortLeased(
    replies.flatMap((reply, i) => (reply as unknown[]).map((row) => toTaskRow(hosts[i]!, row))),
  );
}

/** Insertion order, like the other adapters' id order. */
function sortLeased(rows: TaskRow[]): Task[] {
  rows.sort((a, b) => a.created - b.created);
  return rows.map((r) => r.task);
}

/** Dead letters of every host holding some, merged in dead order (deadAt, then insertion). */
export async function readDead(
  client: RedisLike,
  keys: RedisKeys,
  options: { limit?: number; offset?: number; jobId?: string } = {},
): Promise<DeadLetter[]> {
  const hosts = await hostSet(client, keys, 'deadHosts');
  if (hosts.length === 0) return [];
  const offset = options.offset ?? 0;
  const want = options.limit === undefined ? -1 : offset + options.limit;
  const pipe = batch(client);
  // Each host needs to return at most offset + limit rows for the merged page to be exact.
  for (const host of hosts)
    script(pipe, 'crawldListDead', keys.hostList(host), [want < 0 ? 2 ** 31 : want, options.jobId ?? '']);
  const replies = await execAll(pipe);
  const rows: DeadRow[] = replies.flatMap((reply, i) =>
    (reply as unknown[]).map((row) => toDeadRow(hosts[i]!, row)),
  );
  rows.sort((a, b) => a.dead.deadAt - b.dead.deadAt || a.created - b.created);
  return rows.slice(offset, want < 0 ? undefined : want).map((r) => r.dead);
}

/** Republishes every host's snapshot (a client may have died before a PUBLISH); O(hosts ever enqueued). */
export async function repairIndexes(client: RedisLike, keys: RedisKeys, chunk = 500): Promise<number> {
  let hosts = 0;
  for (const bucket of keys.buckets) {
    let cursor = '0';
    do {
      const [next, found] = await client.sscan(bucket.hosts, cursor, 'COUNT', chunk);
      cursor = next;
      if (found.length === 0) continue;
      const pipe = batch(client);
      for (const host of found) script(pipe, 'crawldSnapshot', keys.hostList(host), []);
      const snaps = await execAll(pipe);
      const pub = batch(client);
      publish(
        pub,
        keys,
        found.map((host, i) => [host, snaps[i] as Snapshot] as const),
      );
      await execAll(pub);
      hosts += found.length;
    } while (cursor !== '0');
  }
  return hosts;
}

/** repair() on a single Redis: one atomic recount of every host (lua/repair.lua). */
export async function repairSingle(client: RedisLike, keys: RedisKeys, prefix: string): Promise<number> {
  const b = keys.buckets[0]!;
  const list = [b.hosts, ...keys.singleList()];
  return Number(await script(client, 'crawldRepair', [], [list.length, ...list, prefix]));
}
