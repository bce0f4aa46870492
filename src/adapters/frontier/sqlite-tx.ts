/**
 * The SQLite frontier's transactions, built once per connection. Writes run as
 * BEGIN IMMEDIATE (`.immediate(...)`): taking the write lock up front means two instances
 * on one file queue on busy_timeout instead of failing with SQLITE_BUSY on lock upgrade.
 * enqueue, recrawl, retry and bury are plain functions that WriteBatcher runs, each call as
 * a transaction of its own or a savepoint of a shared one (see sqlite-batcher.ts).
 */
import type Database from 'better-sqlite3';
import { CrawldError } from '../../core/errors.js';
import type { EnqueueResult } from '../../ports/frontier.js';
import type { PreparedRequest } from './common.js';
import { type Claim, type Dedupe, urlHash } from './sqlite-dedupe.js';
import type { Statements, TaskRow } from './sqlite-statements.js';

/** Per-call bounds on catch-up work (expired leases, due delayed tasks); the rest follows on later calls. */
const RECLAIM_BATCH = 10_000;
const PROMOTE_BATCH = 10_000;
/** Rows per INSERT statement of an enqueue (10 parameters each). */
const INSERT_ROWS = 50;

type Bucket = 'pending' | 'dead' | 'all';

/** Counter changes made during one transaction, written once at its end. */
class CountDeltas {
  readonly #deltas = new Map<string, number>();
  add(bucket: Bucket, priority: number, delta: number): void {
    const key = `${bucket}:${priority}`;
    this.#deltas.set(key, (this.#deltas.get(key) ?? 0) + delta);
  }
  flush(st: Statements): void {
    for (const [key, delta] of this.#deltas) {
      const at = key.indexOf(':');
      if (delta !== 0) st.bump.run(key.slice(0, at), Number(key.slice(at + 1)), delta);
    }
  }
}

export interface LeaseArgs {
  now: number;
  max: number;
  expiresAt: number;
  owner: string;
  token: string;
  /** JSON array of excluded hosts, or undefined when none. */
  hosts: string | undefined;
  scan: number;
}

export interface RawStats {
  pending: Array<{ priority: number; n: number }>;
  all: number;
  dead: number;
  leased: number;
  delayed: number;
}

const stateAt = (at: number, now: number) => (at <= now ? 'ready' : 'delayed');

/** The values of one new task row, in the order of the insert statements' columns. */
function taskRow(r: PreparedRequest, id: number, job: number, slot: number, state: string) {
  // id doubles as the row's seq (see tasks in sqlite-schema.ts).
  return [
    id,
    job,
    r.url,
    slot,
    r.host,
    r.priority,
    r.depth,
    state,
    r.notBefore,
    id,
    r.requestUrl ?? null,
  ] as const;
}

export function makeTransactions(db: Database.Database, st: Statements, dedupe: Dedupe, maxPending: number) {
  /** Runs a write that moves one leased task back to pending at `at`; false when the lease is stale. */
  const requeueLeased = (write: (seq: number) => number | undefined): boolean => {
    const seq = st.seqGet.get()!;
    const priority = write(seq);
    if (priority === undefined) return false;
    st.seqSet.run(seq + 1);
    st.bump.run('pending', priority, 1);
    return true;
  };

  return {
    enqueue: (batch: readonly PreparedRequest[], jobs: Map<string, number>, now: number): EnqueueResult => {
      const deltas = new CountDeltas();
      let seq = st.seqGet.get()!;
      let pending = st.pendingTotal.get()!;
      let claimed = 0; // new rows in dedupe_new
      const result = { added: 0, duplicates: 0, dropped: 0 };
      const added = (r: PreparedRequest) => {
        deltas.add('pending', r.priority, 1);
        pending++;
        result.added++;
      };
      /** Stores r with `rowSeq` unless its URL is known; forced requests restart a finished task. */
      const one = (r: PreparedRequest, job: number, rowSeq: number): boolean => {
        const state = stateAt(r.notBefore, now);
        const { row, slot } = dedupe.find(job, r.url);
        if (row) {
          // Seen: a duplicate, unless forced and finished, which starts a new generation.
          if (!r.force || (row.state !== 'done' && row.state !== 'dead')) {
            result.duplicates++;
            return false;
          }
          st.requeue.run(r.priority, r.depth, state, r.notBefore, rowSeq, row.id);
          if (row.state === 'dead') deltas.add('dead', row.priority, -1);
        } else if (!r.force && pending >= maxPending) {
          result.dropped++; // nothing written, so the URL is not remembered as seen
          return false;
        } else {
          dedupe.add(job, slot, rowSeq);
          claimed++;
          st.insert.run(...taskRow(r, rowSeq, job, slot, state));
          deltas.add('all', 0, 1);
        }
        added(r);
        return true;
      };
      for (let start = 0; start < batch.length; start += INSERT_ROWS) {
        const chunk = batch.slice(start, start + INSERT_ROWS);
        // Row by row when a row may be dropped (maxPending) or forced (may update a row).
        if (pending + chunk.length > maxPending || chunk.some((r) => r.force)) {
          for (const r of chunk) if (one(r, jobs.get(r.jobId)!, seq)) seq++;
          continue;
        }
        // Otherwise all at once: each row claims its hash slot, and a row whose slot is taken
        // is a duplicate (also of an earlier row of the chunk) or a collision, settled by one().
        const claims: Claim[] = chunk.map((r, i) => ({
          job: jobs.get(r.jobId)!,
          slot: urlHash(r.url),
          id: seq + i,
        }));
        const stored = dedupe.claim(claims);
        // The claimed rows go in first: one() finds a duplicate of them through their task row.
        const args: unknown[] = [];
        chunk.forEach((r, i) => {
          const { job, slot, id } = claims[i]!;
          if (!stored.has(id)) return;
          args.push(...taskRow(r, id, job, slot, stateAt(r.notBefore, now)));
        });
        if (stored.size > 0 && st.insertMany(stored.size).run(args).changes !== stored.size) {
          // An id taken (seq behind the ids, which the schema rules out): fail the call whole.
          throw new CrawldError('frontier: a new task id is taken');
        }
        claimed += stored.size;
        chunk.forEach((r, i) => {
          const { job, id } = claims[i]!;
          if (stored.has(id)) {
            deltas.add('all', 0, 1);
            added(r);
          } else {
            one(r, job, id);
          }
        });
        // The seqs of duplicates go unused: seq only has to grow.
        seq += chunk.length;
      }
      deltas.flush(st);
      st.seqSet.run(seq);
      dedupe.settle(claimed);
      return result;
    },

    lease: db.transaction((a: LeaseArgs): TaskRow[] => {
      const deltas = new CountDeltas();
      for (const priority of st.reclaim.all(a.now, RECLAIM_BATCH)) deltas.add('pending', priority, 1);
      st.promote.run(a.now, PROMOTE_BATCH);
      const take = { token: a.token, owner: a.owner, expiresAt: a.expiresAt, max: a.max };
      const rows =
        a.hosts === undefined
          ? st.take.all(take)
          : st.takeExcluding.all({ ...take, scan: a.scan, hosts: a.hosts });
      for (const row of rows) deltas.add('pending', row.priority, -1);
      deltas.flush(st);
      // RETURNING order is unspecified: restore lease order.
      return rows.sort((x, y) => x.priority - y.priority || x.seq - y.seq);
    }),

    recrawl: (id: number, token: string, at: number, now: number) =>
      requeueLeased((seq) => st.recrawl.get(stateAt(at, now), at, seq, id, token)),

    retry: (id: number, token: string, at: number, now: number, charge: boolean, reason: string) =>
      requeueLeased((seq) => st.retry.get(stateAt(at, now), at, seq, charge ? 1 : 0, reason, id, token)),

    bury: (id: number, token: string, reason: string, now: number): boolean => {
      const priority = st.bury.get(reason, now, reason, id, token);
      if (priority === undefined) return false;
      st.bump.run('dead', priority, 1);
      return true;
    },

    redrive: db.transaction((ids: readonly number[] | undefined, job: number | null, now: number): number => {
      const deltas = new CountDeltas();
      let seq = st.seqGet.get()!;
      let moved = 0;
      for (const id of ids ?? st.deadIds.all({ job })) {
        const priority = st.revive.get({ now, seq, id, job });
        if (priority === undefined) continue; // not dead (any more), or another job's
        deltas.add('dead', priority, -1);
        deltas.add('pending', priority, 1);
        seq++;
        moved++;
      }
      deltas.flush(st);
      st.seqSet.run(seq);
      return moved;
    }),

    /** One read transaction, so the derived numbers come from one snapshot. */
    stats: db.transaction((now: number): RawStats => {
      const raw: RawStats = { pending: [], all: 0, dead: 0, leased: st.leasedCount.get()!, delayed: 0 };
      for (const { bucket, priority, n } of st.counts.all()) {
        if (bucket === 'pending') raw.pending.push({ priority, n });
        else if (bucket === 'dead') raw.dead += n;
        else if (bucket === 'all') raw.all += n;
      }
      // Due-but-not-yet-promoted rows are ready, not delayed: count only the future range.
      raw.delayed = st.delayedCount.get(now)!;
      return raw;
    }),

    nextReadyAt: db.transaction((): number | undefined => {
      const times = [st.readyHeadTime.get(), st.delayedMin.get(), st.leaseMin.get()];
      const known = times.filter((t): t is number => typeof t === 'number');
      return known.length ? Math.min(...known) : undefined;
    }),
  };
}

export type Transactions = ReturnType<typeof makeTransactions>;
