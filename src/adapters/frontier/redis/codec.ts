/** Decoding of the replies of the Redis frontier's Lua scripts (lua.ts). */
import type { DeadLetter, Task } from '../../../ports/frontier.js';
import { makeTask } from '../common.js';
import { taskId } from './keys.js';

/** A host script's snapshot, passed unchanged to the PUBLISH script. */
export type Snapshot = (string | number)[];

/** {changedFlagOrCount..., snapshot}: the snapshot is always the last element. */
export function lastSnapshot(reply: unknown): Snapshot {
  const arr = reply as unknown[];
  return arr[arr.length - 1] as Snapshot;
}

export function isChanged(snapshot: Snapshot, before: number | undefined): boolean {
  return before === undefined || Number(snapshot[0]) !== before;
}

const num = (v: unknown): number => Number(v);

/**
 * A task's URL as stored: the key already names the host, so `https://HOST/path` is stored
 * as `/path` and `http://HOST/path` as `h/path` (saves the ~25 bytes of scheme and host per
 * record); any other URL (userinfo, an unusual form) is stored whole, which can never begin
 * with `/` or `h/` (a URL begins with its scheme and `:`). Dedupe compares packed forms,
 * which are a function of (url, host).
 */
export function packUrl(url: string, host: string): string {
  const n = host.length;
  if (url.startsWith('https://') && url.startsWith(host, 8) && url.charCodeAt(8 + n) === 47)
    return url.slice(8 + n);
  if (url.startsWith('http://') && url.startsWith(host, 7) && url.charCodeAt(7 + n) === 47)
    return `h${url.slice(7 + n)}`;
  return url;
}

export function unpackUrl(stored: string, host: string): string {
  if (stored.charCodeAt(0) === 47) return `https://${host}${stored}`;
  if (stored.startsWith('h/')) return `http://${host}${stored.slice(1)}`;
  return stored;
}

/** A task row: {suffix, url, job, priority, depth, attempts, generation, token, expiresAt, lastError, c, score, requestUrl}. */
export interface TaskRow {
  readonly task: Task;
  /** Seq of the first enqueue: the insertion order the other adapters list by. */
  readonly created: number;
  /** Lease order (priority, seq) for rows returned by the LEASE script. */
  readonly score: number;
}

export function toTaskRow(host: string, row: unknown): TaskRow {
  const r = row as unknown[];
  return {
    task: makeTask({
      id: taskId(host, String(r[0])),
      url: unpackUrl(String(r[1]), host),
      host,
      jobId: String(r[2]),
      priority: num(r[3]),
      depth: num(r[4]),
      attempts: num(r[5]),
      generation: num(r[6]),
      leaseToken: String(r[7]),
      leaseExpiresAt: num(r[8]),
      lastError: r[9] == null ? null : String(r[9]),
      requestUrl: r[12] == null ? null : unpackUrl(String(r[12]), host),
    }),
    created: num(r[10]),
    score: r[11] == null ? 0 : num(r[11]),
  };
}

export interface DeadRow {
  readonly dead: DeadLetter;
  readonly created: number;
}

export function toDeadRow(host: string, row: unknown): DeadRow {
  const r = row as unknown[];
  return {
    dead: {
      id: taskId(host, String(r[0])),
      url: unpackUrl(String(r[1]), host),
      ...(r[9] == null ? {} : { requestUrl: unpackUrl(String(r[9]), host) }),
      jobId: String(r[2]),
      priority: num(r[3]),
      depth: num(r[4]),
      attempts: num(r[5]),
      reason: String(r[6]),
      deadAt: num(r[7]),
    },
    created: num(r[8]),
  };
}

/**
 * Which hosts lease() takes how many tasks from, given each candidate host's best ready
 * entries (suffix, score, suffix, score, ...): the global top `max` by score, i.e. priority
 * then FIFO across hosts. `bound` is the worst score planned per host, so that a host whose
 * queue changed meanwhile (another daemon leased) never yields worse tasks than planned.
 */
export function planLease(
  tops: ReadonlyMap<string, readonly string[]>,
  max: number,
): Map<string, { count: number; bound: number }> {
  const all: { host: string; score: number }[] = [];
  for (const [host, flat] of tops) {
    for (let i = 1; i < flat.length; i += 2) all.push({ host, score: Number(flat[i]) });
  }
  all.sort((a, b) => a.score - b.score);
  const plan = new Map<string, { count: number; bound: number }>();
  for (const { host, score } of all.slice(0, max)) {
    const p = plan.get(host);
    if (p) {
      p.count++;
      p.bound = score;
    } else plan.set(host, { count: 1, bound: score });
  }
  return plan;
}
