/**
 * Durable frontier on one SQLite file (better-sqlite3). Each method is one transaction, so
 * a crash leaves every task before or after a call. Several instances may open the same
 * file (the daemon, a `crawld dlq` command): writes take the write lock up front
 * (BEGIN IMMEDIATE) and shared counters are read inside the transaction, never cached.
 * Schema and sizing notes: sqlite-schema.ts.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type {
  AckOptions,
  DeadLetter,
  EnqueueRequest,
  EnqueueResult,
  Frontier,
  FrontierStats,
  LeaseOptions,
  RetryOptions,
  Task,
} from '../../ports/frontier.js';
import { checkLeaseOptions, checkMaxPending, makeTask, notOpenError, prepareRequests } from './common.js';
import { configure, migrate } from './sqlite-schema.js';
import { prepareStatements, type Statements, type TaskRow } from './sqlite-statements.js';

export interface SqliteFrontierOptions {
  /** Database file; its directory is created if missing. ':memory:' works for throwaway use. */
  path: string;
  clock: Clock;
  /** Bound on pending (ready + delayed) tasks; unbounded when omitted. */
  maxPending?: number;
  /**
   * How many ready tasks, in lease order, lease() looks at when excludeHosts is set. When
   * excluded hosts hold all of them, lease() returns fewer tasks (maybe none) even if
   * eligible tasks sit further back; they are reached once those hosts are served or no
   * longer excluded. The bound keeps a lease call at a few milliseconds whatever the skew.
   * @default 20000
   */
  leaseScanLimit?: number;
}

/** Per-call bounds on catch-up work (expired leases, due delayed tasks); the rest follows on later calls. */
const RECLAIM_BATCH = 10_000;
const PROMOTE_BATCH = 10_000;

type Bucket = 'pending' | 'leased' | 'done' | 'dead';

/** Count changes made during one transaction, written to the counts table once at the end. */
class CountDeltas {
  readonly #deltas = new Map<string, number>();
  add(bucket: Bucket, priority: number, delta: number): void {
    const key = `${bucket}:${priority}`;
    this.#deltas.set(key, (this.#deltas.get(key) ?? 0) + delta);
  }
  move(from: Bucket, to: Bucket, priority: number): void {
    this.add(from, priority, -1);
    this.add(to, priority, 1);
  }
  flush(st: Statements): void {
    for (const [key, delta] of this.#deltas) {
      if (delta === 0) continue;
      const at = key.indexOf(':');
      st.bump.run(key.slice(0, at), Number(key.slice(at + 1)), delta);
    }
  }
}

export class SqliteFrontier implements Frontier {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #maxPending: number;
  readonly #scanLimit: number;
  #db: Database.Database | undefined;
  #st: Statements | undefined;
  // Job rows are never changed or deleted, so caching the name <-> key mapping is safe
  // even with another instance writing the same file.
  readonly #jobKeys = new Map<string, number>();
  readonly #jobNames = new Map<number, string>();

  constructor(options: SqliteFrontierOptions) {
    this.#path = options.path;
    this.#clock = options.clock;
    this.#maxPending = checkMaxPending(options.maxPending);
    this.#scanLimit = options.leaseScanLimit ?? 20_000;
  }

  async open(): Promise<void> {
    if (this.#db) return;
    if (this.#path !== ':memory:') mkdirSync(dirname(this.#path), { recursive: true });
    const db = new Database(this.#path);
    try {
      configure(db);
      migrate(db);
      this.#st = prepareStatements(db);
    } catch (err) {
      db.close();
      throw err;
    }
    this.#db = db;
  }

  async close(): Promise<void> {
    const db = this.#db;
    this.#db = undefined;
    this.#st = undefined;
    db?.close();
  }

  async enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult> {
    const [db, st] = this.#conn();
    const now = this.#clock.now();
    const prepared = prepareRequests(requests, now);
    const jobs = this.#createJobs(prepared.map((r) => r.jobId));
    return db
      .transaction((): EnqueueResult => {
        const deltas = new CountDeltas();
        let seq = st.seqGet.get()!;
        let pending = st.pendingTotal.get()!;
        let added = 0;
        let duplicates = 0;
        let dropped = 0;
        for (const r of prepared) {
          const job = jobs.get(r.jobId)!;
          const state = r.notBefore <= now ? 'ready' : 'delayed';
          if (r.force) {
            const row = st.findKey.get(job, r.url);
            if (row?.state === 'done' || row?.state === 'dead') {
              st.requeue.run(r.priority, r.depth, state, r.notBefore, seq++, row.id);
              deltas.add(row.state, row.priority, -1);
            } else if (row) {
              duplicates++; // pending or leased: left alone
              continue;
            } else {
              st.insert.run(job, r.url, r.host, r.priority, r.depth, state, r.notBefore, seq++);
            }
          } else if (pending >= this.#maxPending) {
            // Full: only look the URL up to tell a duplicate from a drop. Nothing is written,
            // so a dropped URL is not remembered as seen.
            if (st.exists.get(job, r.url)) duplicates++;
            else dropped++;
            continue;
          } else if (st.insert.run(job, r.url, r.host, r.priority, r.depth, state, r.notBefore, seq).changes) {
            seq++;
          } else {
            duplicates++;
            continue;
          }
          deltas.add('pending', r.priority, 1);
          pending++;
          added++;
        }
        deltas.flush(st);
        st.seqSet.run(seq);
        return { added, duplicates, dropped };
      })
      .immediate();
  }

  async lease(options: LeaseOptions): Promise<Task[]> {
    const [db, st] = this.#conn();
    checkLeaseOptions(options);
    if (options.max === 0) return [];
    const now = this.#clock.now();
    const exclude = options.excludeHosts?.size ? JSON.stringify([...options.excludeHosts]) : undefined;
    const rows = db
      .transaction((): TaskRow[] => {
        const deltas = new CountDeltas();
        for (const priority of st.reclaim.all(now, RECLAIM_BATCH)) deltas.move('leased', 'pending', priority);
        st.promote.run(now, PROMOTE_BATCH);
        const ids =
          exclude === undefined
            ? st.head.all(options.max)
            : st.headExcluding.all(this.#scanLimit, exclude, options.max);
        const expiresAt = now + options.leaseMs;
        const taken = ids.map((id) => {
          const row = st.take.get(randomUUID(), options.owner, expiresAt, id)!;
          deltas.move('pending', 'leased', row.priority);
          return row;
        });
        deltas.flush(st);
        return taken;
      })
      .immediate();
    return rows.map((row) => this.#toTask(row));
  }

  async ack(task: Task, options?: AckOptions): Promise<boolean> {
    const recrawlAt = options?.recrawlAt;
    if (recrawlAt === undefined) {
      return this.#finish((st) => st.done.get(Number(task.id), task.leaseToken), 'done');
    }
    return this.#finish((st, now) => {
      const state = recrawlAt <= now ? 'ready' : 'delayed';
      return st.recrawl.get(state, recrawlAt, st.seqGet.get()!, Number(task.id), task.leaseToken);
    }, 'pending');
  }

  async retry(task: Task, options: RetryOptions): Promise<boolean> {
    return this.#finish((st, now) => {
      const state = options.at <= now ? 'ready' : 'delayed';
      const charge = options.chargeAttempt ? 1 : 0;
      const seq = st.seqGet.get()!;
      return st.retry.get(state, options.at, seq, charge, options.reason, Number(task.id), task.leaseToken);
    }, 'pending');
  }

  async deadLetter(task: Task, reason: string): Promise<boolean> {
    return this.#finish(
      (st, now) => st.bury.get(reason, now, reason, Number(task.id), task.leaseToken),
      'dead',
    );
  }

  async stats(): Promise<FrontierStats> {
    const [db, st] = this.#conn();
    const now = this.#clock.now();
    return db.transaction((): FrontierStats => {
      const totals: Record<Bucket, number> = { pending: 0, leased: 0, done: 0, dead: 0 };
      const pendingByPriority: Record<string, number> = {};
      for (const { bucket, priority, n } of st.counts.all()) {
        totals[bucket as Bucket] += n;
        if (bucket === 'pending') pendingByPriority[String(priority)] = n;
      }
      // Counts the delayed index range; due-but-not-yet-promoted rows are ready, not delayed.
      return { ...totals, delayed: st.delayedCount.get(now)!, pendingByPriority };
    })();
  }

  async nextReadyAt(): Promise<number | undefined> {
    const [db, st] = this.#conn();
    return db.transaction((): number | undefined => {
      const times = [st.readyHeadTime.get(), st.delayedMin.get(), st.leaseMin.get()];
      const known = times.filter((t): t is number => typeof t === 'number');
      return known.length ? Math.min(...known) : undefined;
    })();
  }

  async listLeased(): Promise<Task[]> {
    const [, st] = this.#conn();
    return st.leased.all().map((row) => this.#toTask(row));
  }

  async listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]> {
    const [, st] = this.#conn();
    const job = options?.jobId === undefined ? null : this.#jobKey(options.jobId);
    if (job === undefined) return [];
    return st.dead.all({ job, limit: options?.limit ?? -1, offset: options?.offset ?? 0 }).map((row) => ({
      id: String(row.id),
      url: row.url,
      jobId: this.#jobName(row.job),
      priority: row.priority,
      depth: row.depth,
      attempts: row.attempts,
      reason: row.dead_reason,
      deadAt: row.dead_at,
    }));
  }

  async redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number> {
    const [db, st] = this.#conn();
    const job = options?.jobId === undefined ? null : this.#jobKey(options.jobId);
    if (job === undefined) return 0;
    const now = this.#clock.now();
    return db
      .transaction((): number => {
        const deltas = new CountDeltas();
        const ids = options?.ids ? options.ids.map(Number).filter(Number.isSafeInteger) : st.deadIds.all({ job });
        let seq = st.seqGet.get()!;
        let moved = 0;
        for (const id of ids) {
          const priority = st.revive.get({ now, seq, id, job });
          if (priority === undefined) continue;
          deltas.move('dead', 'pending', priority);
          seq++;
          moved++;
        }
        deltas.flush(st);
        st.seqSet.run(seq);
        return moved;
      })
      .immediate();
  }

  #conn(): [Database.Database, Statements] {
    if (!this.#db || !this.#st) throw notOpenError();
    return [this.#db, this.#st];
  }

  /** ack/retry/deadLetter: one guarded UPDATE returning the priority, or undefined when the lease is stale. */
  async #finish(update: (st: Statements, now: number) => number | undefined, to: Bucket): Promise<boolean> {
    const [db, st] = this.#conn();
    const now = this.#clock.now();
    return db
      .transaction((): boolean => {
        const priority = update(st, now);
        if (priority === undefined) return false;
        // Only moves back to pending consume a seq; bumping it for the others is harmless but wasteful.
        if (to === 'pending') st.seqSet.run(st.seqGet.get()! + 1);
        st.bump.run('leased', priority, -1);
        st.bump.run(to, priority, 1);
        return true;
      })
      .immediate();
  }

  /**
   * Registers unseen jobs in their own committed transaction, before the enqueue
   * transaction: a key cached from a transaction that later rolled back would point at
   * no row. A job row left behind by a failed enqueue is harmless.
   */
  #createJobs(names: readonly string[]): Map<string, number> {
    const [db, st] = this.#conn();
    const unseen = [...new Set(names)].filter((name) => !this.#jobKeys.has(name));
    if (unseen.length) db.transaction(() => unseen.forEach((name) => st.jobAdd.run(name))).immediate();
    return new Map(names.map((name) => [name, this.#jobKey(name)!]));
  }

  /** Undefined when the job has never been seen. */
  #jobKey(name: string): number | undefined {
    let key = this.#jobKeys.get(name);
    if (key !== undefined) return key;
    key = this.#conn()[1].jobGet.get(name);
    if (key !== undefined) {
      this.#jobKeys.set(name, key);
      this.#jobNames.set(key, name);
    }
    return key;
  }

  #jobName(key: number): string {
    let name = this.#jobNames.get(key);
    if (name === undefined) {
      name = this.#conn()[1].jobName.get(key)!;
      this.#jobNames.set(key, name);
      this.#jobKeys.set(name, key);
    }
    return name;
  }

  #toTask(row: TaskRow): Task {
    return makeTask({
      id: String(row.id),
      url: row.url,
      host: row.host,
      jobId: this.#jobName(row.job),
      priority: row.priority,
      depth: row.depth,
      attempts: row.attempts,
      generation: row.generation,
      leaseToken: row.lease_token,
      leaseExpiresAt: row.lease_expires_at,
      lastError: row.last_error,
    });
  }
}
