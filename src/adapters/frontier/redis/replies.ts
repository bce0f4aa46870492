/** The Redis frontier's script replies: each layout once, as 0-based field positions (lua/prelude.lua matches). */
import type { DeadLetter, Task } from '../../../ports/frontier.js';
import { makeTask } from '../frontier-common.js';
import { unpackUrl } from './codec.js';
import { taskId } from './keys.js';
import type { BatchOp } from './scripts.js';
import { decodeRecord } from './task-record.js';

/** A task row (prelude.lua task()): created is the seq of its first enqueue; score only from LEASE and TAKE. */
export const TASK_ROW = {
  suffix: 0,
  url: 1,
  job: 2,
  priority: 3,
  depth: 4,
  attempts: 5,
  generation: 6,
  token: 7,
  expiresAt: 8,
  lastError: 9,
  created: 10,
  score: 11,
  requestUrl: 12,
} as const;

/** A dead row (list-dead.lua). */
export const DEAD_ROW = {
  suffix: 0,
  url: 1,
  job: 2,
  priority: 3,
  depth: 4,
  attempts: 5,
  reason: 6,
  deadAt: 7,
  created: 8,
  requestUrl: 9,
} as const;

/** A host's snapshot (prelude.lua snapshot()), passed to PUBLISH unread but for its version;
 *  from `priorities` on, (priority, pending) pairs. */
export const SNAPSHOT = {
  version: 0,
  head: 1,
  due: 2,
  pending: 3,
  leased: 4,
  done: 5,
  dead: 6,
  priorities: 7,
} as const;

/** Each host operation's reply; the snapshot is empty on one Redis, PEEK's false when nothing changed. */
export const REPLY = {
  enqueue: { added: 0, duplicates: 1, dropped: 2, snapshot: 3 },
  peek: { top: 0, snapshot: 1 },
  lease: { rows: 0, snapshot: 1 },
  ack: { done: 0, snapshot: 1 },
  retry: { done: 0, snapshot: 1 },
  dead: { done: 0, snapshot: 1 },
  extend: { done: 0, snapshot: 1 },
  redrive: { moved: 0, snapshot: 1 },
} as const satisfies Record<BatchOp, { readonly snapshot: number } & Record<string, number>>;

/** One operation's entry in a BATCH reply: ok 1 and its reply, or ok 0 and the error message. */
export const BATCH_ENTRY = { ok: 0, value: 1 } as const;

/** ENQUEUE_MANY: added, duplicates, dropped, error or false; or -1 (added) and the last seq, nothing written. */
export const ENQUEUE_MANY = { added: 0, duplicates: 1, dropped: 2, error: 3, lastSeq: 1 } as const;

/** LIST_LEASED_ALL: one per task, its host and its task row. */
export const HOST_ROW = { host: 0, row: 1 } as const;

/** TAKE: one per task, best first: its host, id suffix, lease token and record as stored. */
export const TAKE_ROW = { host: 0, suffix: 1, token: 2, record: 3 } as const;

/** A stored record's fields (prelude.lua FS ... FRU), 0-based. */
const RECORD = {
  url: 1,
  job: 2,
  priority: 3,
  depth: 4,
  attempts: 5,
  generation: 6,
  lastError: 12,
  requestUrl: 14,
} as const;

/** A host script's snapshot, passed unchanged to the PUBLISH script. */
export type Snapshot = (string | number)[];

/** The snapshot in a host operation's reply. */
export function snapshotOf(op: BatchOp, reply: readonly unknown[]): Snapshot {
  return reply[REPLY[op].snapshot] as Snapshot;
}

export function snapshotVersion(snap: Snapshot): number {
  return Number(snap[SNAPSHOT.version]);
}

const num = (v: unknown): number => Number(v);

export interface TaskRow {
  readonly task: Task;
  /** Seq of the first enqueue: the insertion order the other adapters list by. */
  readonly created: number;
  /** Lease order (priority, seq) for rows returned by LEASE and TAKE. */
  readonly score: number;
}

type RowFields = Record<'suffix' | 'url' | 'job' | 'priority' | 'depth' | 'attempts' | 'requestUrl', number>;

/** What a task and a dead letter both read from their rows; requestUrl null when absent. */
function commonFields(host: string, r: readonly unknown[], F: RowFields) {
  const requestUrl = r[F.requestUrl];
  return {
    id: taskId(host, String(r[F.suffix])),
    url: unpackUrl(String(r[F.url]), host),
    jobId: String(r[F.job]),
    priority: num(r[F.priority]),
    depth: num(r[F.depth]),
    attempts: num(r[F.attempts]),
    requestUrl: requestUrl == null ? null : unpackUrl(String(requestUrl), host),
  };
}

export function toTaskRow(host: string, row: unknown): TaskRow {
  const r = row as unknown[];
  const F = TASK_ROW;
  const lastError = r[F.lastError];
  const score = r[F.score];
  return {
    task: makeTask({
      ...commonFields(host, r, F),
      host,
      generation: num(r[F.generation]),
      leaseToken: String(r[F.token]),
      leaseExpiresAt: num(r[F.expiresAt]),
      lastError: lastError == null ? null : String(lastError),
    }),
    created: num(r[F.created]),
    score: score == null ? 0 : num(score),
  };
}

/** TAKE's reply (Buffers): its tasks, leased until expiresAt; each record decoded once, here. */
/** TAKE's rows; each token is the prefix sent plus the rest the row gives. */
export function toTakeTasks(reply: unknown, expiresAt: number, tokenPrefix: string): Task[] {
  return (reply as Buffer[][]).map((e) => {
    const host = e[TAKE_ROW.host]!.toString('latin1');
    const r = decodeRecord(e[TAKE_ROW.record]!);
    const F = RECORD;
    const lastError = r[F.lastError];
    const requestUrl = r[F.requestUrl];
    return makeTask({
      id: taskId(host, e[TAKE_ROW.suffix]!.toString('latin1')),
      url: unpackUrl(String(r[F.url]), host),
      jobId: String(r[F.job]),
      priority: num(r[F.priority]),
      depth: num(r[F.depth]),
      attempts: num(r[F.attempts]),
      requestUrl: requestUrl == null || requestUrl === false ? null : unpackUrl(String(requestUrl), host),
      host,
      generation: num(r[F.generation]),
      leaseToken: tokenPrefix + e[TAKE_ROW.token]!.toString('latin1'),
      leaseExpiresAt: expiresAt,
      lastError: lastError == null || lastError === false ? null : String(lastError),
    });
  });
}

/** LIST_LEASED_ALL's reply: {host, task row} per task. */
export function toHostTaskRows(reply: unknown): TaskRow[] {
  return (reply as unknown[][]).map((e) => toTaskRow(String(e[HOST_ROW.host]), e[HOST_ROW.row]));
}

export interface DeadRow {
  readonly dead: DeadLetter;
  readonly created: number;
}

export function toDeadRow(host: string, row: unknown): DeadRow {
  const r = row as unknown[];
  const F = DEAD_ROW;
  // The other frontiers' field order (dlq list --json prints it).
  const { id, url, requestUrl, ...fields } = commonFields(host, r, F);
  return {
    dead: {
      id,
      url,
      ...(requestUrl === null ? {} : { requestUrl }),
      ...fields,
      reason: String(r[F.reason]),
      deadAt: num(r[F.deadAt]),
    },
    created: num(r[F.created]),
  };
}
