/**
 * Durable frontier on one SQLite file: each method is one transaction. Several instances may
 * open the file (daemon, `crawld dlq`): writes BEGIN IMMEDIATE, shared counters are never cached.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { Clock } from '../../../core/clock.js';
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
} from '../../../ports/frontier.js';
import {
  checkCount,
  checkLeaseOptions,
  checkMaxPending,
  makeTask,
  notOpenError,
} from '../frontier-common.js';
import { SeenCache } from '../seen-cache.js';
import { WriteBatcher } from './batcher.js';
import { makeDedupe } from './dedupe.js';
import { ExcludedHosts } from './excluded.js';
import { configure, migrate } from './sqlite-schema.js';
import { prepareStatements, type Statements, type TaskRow } from './statements.js';
import { makeTransactions, type Transactions } from './tx.js';

interface Connection {
  readonly db: Database.Database;
  readonly st: Statements;
  readonly tx: Transactions;
  readonly batch: WriteBatcher;
}

export interface SqliteFrontierOptions {
  /** Database file; its directory is created if missing. ':memory:' works for throwaway use. */
  path: string;
  clock: Clock;
  /** Bound on pending (ready + delayed) tasks; unbounded when omitted. */
  maxPending?: number;
  /**
   * Ready tasks lease() looks at when excludeHosts is set (keeps a lease at a few ms); fewer
   * tasks, maybe none, when excluded hosts hold them all.
   * @default 20000
   */
  leaseScanLimit?: number;
  /**
   * Rows dedupe_new keeps before an enqueue moves the excess to dedupe (dedupe.ts); 0 moves
   * every new row. Per process (docs/performance.md).
   * @default 20000
   */
  dedupeMergeRows?: number;
}

export class SqliteFrontier implements Frontier {
  readonly #path: string;
  readonly #clock: Clock;
  readonly #maxPending: number;
  readonly #scanLimit: number;
  readonly #mergeRows: number;
  #c: Connection | undefined;
  // Job rows are never changed or deleted: safe to cache with another instance on the file.
  readonly #jobKeys = new Map<string, number>();
  readonly #jobNames = new Map<number, string>();
  /** URLs known to have a row, per job: rows are never deleted, so a hit is a certain duplicate. */
  readonly #seen = new SeenCache();
  readonly #excluded = new ExcludedHosts();

  constructor(options: SqliteFrontierOptions) {
    this.#path = options.path;
    this.#clock = options.clock;
    this.#maxPending = checkMaxPending(options.maxPending);
    this.#scanLimit = options.leaseScanLimit ?? 20_000;
    this.#mergeRows = checkCount('dedupeMergeRows', options.dedupeMergeRows ?? 20_000);
  }

  async open(): Promise<void> {
    if (this.#c) return;
    if (this.#path !== ':memory:') mkdirSync(dirname(this.#path), { recursive: true });
    const db = new Database(this.#path);
    try {
      configure(db);
      migrate(db);
      const st = prepareStatements(db);
      // host_tags holds only hosts with work queued in the current round or later (fair.ts).
      st.hostTagsPrune.run();
      const tx = makeTransactions(db, st, makeDedupe(db, this.#mergeRows), this.#maxPending);
      this.#c = { db, st, tx, batch: new WriteBatcher(db) };
      // A new connection's TEMP table starts empty.
      this.#excluded.reset();
    } catch (err) {
      db.close();
      throw err;
    }
  }

  async close(): Promise<void> {
    const c = this.#c;
    this.#c = undefined;
    c?.batch.flush();
    c?.db.close();
  }

  async enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult> {
    const { tx, batch } = this.#conn();
    const now = this.#clock.now();
    return this.#seen.enqueue(requests, now, (fresh) => {
      const jobs = this.#createJobs(fresh.map((r) => r.jobId));
      return batch.run(() => tx.enqueue(fresh, jobs, now));
    });
  }

  async lease(options: LeaseOptions): Promise<Task[]> {
    const { tx } = this.#conn();
    checkLeaseOptions(options);
    if (options.max === 0) return [];
    const now = this.#clock.now();
    const hosts = options.excludeHosts?.size ? options.excludeHosts : undefined;
    const exclude = hosts && this.#excluded.change(hosts);
    // A failed lease rolls lease_exclude back too: what #excluded holds stays true.
    const rows = tx.lease.immediate({
      now,
      max: options.max,
      expiresAt: now + options.leaseMs,
      owner: options.owner,
      token: randomUUID(),
      exclude,
      scan: this.#scanLimit,
    });
    if (exclude) this.#excluded.commit(exclude);
    return rows.map((row) => this.#toTask(row));
  }

  async ack(task: Task, options?: AckOptions): Promise<boolean> {
    const { st, tx, batch } = this.#conn();
    const id = Number(task.id);
    const recrawlAt = options?.recrawlAt;
    if (recrawlAt === undefined) return batch.run(() => st.done.run(id, task.leaseToken).changes > 0, true);
    const now = this.#clock.now();
    return batch.run(() => tx.recrawl(id, task.host, task.leaseToken, recrawlAt, now));
  }

  async retry(task: Task, options: RetryOptions): Promise<boolean> {
    const { tx, batch } = this.#conn();
    const now = this.#clock.now();
    return batch.run(() =>
      tx.retry(
        Number(task.id),
        task.host,
        task.leaseToken,
        options.at,
        now,
        options.chargeAttempt,
        options.reason,
      ),
    );
  }

  async deadLetter(task: Task, reason: string): Promise<boolean> {
    const { tx, batch } = this.#conn();
    const now = this.#clock.now();
    return batch.run(() => tx.bury(Number(task.id), task.leaseToken, reason, now));
  }

  async extend(task: Task, leaseMs: number): Promise<boolean> {
    const { st, batch } = this.#conn();
    const expiresAt = this.#clock.now() + leaseMs;
    return batch.run(() => st.extend.run(expiresAt, Number(task.id), task.leaseToken).changes > 0, true);
  }

  async stats(): Promise<FrontierStats> {
    const raw = this.#conn().tx.stats(this.#clock.now());
    const pendingByPriority: Record<string, number> = {};
    let pending = 0;
    for (const { priority, n } of raw.pending) {
      pendingByPriority[String(priority)] = n;
      pending += n;
    }
    const done = raw.all - pending - raw.leased - raw.dead;
    return { pending, delayed: raw.delayed, leased: raw.leased, done, dead: raw.dead, pendingByPriority };
  }

  async nextReadyAt(): Promise<number | undefined> {
    return this.#conn().tx.nextReadyAt();
  }

  async listLeased(options?: { owner?: string }): Promise<Task[]> {
    const { st } = this.#conn();
    const rows = options?.owner === undefined ? st.leased.all() : st.leasedBy.all(options.owner);
    return rows.map((row) => this.#toTask(row));
  }

  async listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]> {
    const { st } = this.#conn();
    const job = options?.jobId === undefined ? null : this.#jobKey(options.jobId);
    if (job === undefined) return [];
    return st.dead.all({ job, limit: options?.limit ?? -1, offset: options?.offset ?? 0 }).map((row) => ({
      id: String(row.id),
      url: row.url,
      ...(row.request_url !== null ? { requestUrl: row.request_url } : {}),
      jobId: this.#jobName(row.job),
      priority: row.priority,
      depth: row.depth,
      attempts: row.attempts,
      reason: row.dead_reason,
      deadAt: row.dead_at,
    }));
  }

  async redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number> {
    const { tx } = this.#conn();
    const job = options?.jobId === undefined ? null : this.#jobKey(options.jobId);
    if (job === undefined) return 0;
    // Ids that are not row ids cannot name a task: they count as not found, like unknown ids.
    const ids = options?.ids?.map(Number).filter(Number.isSafeInteger);
    return tx.redrive.immediate(ids, job, this.#clock.now());
  }

  #conn(): Connection {
    if (!this.#c) throw notOpenError();
    return this.#c;
  }

  /** Registers unseen jobs in a transaction of their own: a key cached from a rolled-back one would name no row. */
  #createJobs(names: readonly string[]): Map<string, number> {
    const { db, st } = this.#conn();
    const distinct = [...new Set(names)];
    const unseen = distinct.filter((name) => !this.#jobKeys.has(name));
    if (unseen.length) {
      db.transaction(() => {
        for (const name of unseen) st.jobAdd.run(name);
      }).immediate();
    }
    return new Map(distinct.map((name) => [name, this.#jobKey(name)!]));
  }

  /** Undefined when the job has never been seen. */
  #jobKey(name: string): number | undefined {
    let key = this.#jobKeys.get(name);
    if (key !== undefined) return key;
    key = this.#conn().st.jobGet.get(name);
    if (key !== undefined) {
      this.#jobKeys.set(name, key);
      this.#jobNames.set(key, name);
    }
    return key;
  }

  #jobName(key: number): string {
    let name = this.#jobNames.get(key);
    if (name === undefined) {
      name = this.#conn().st.jobName.get(key)!;
      this.#jobNames.set(key, name);
      this.#jobKeys.set(name, key);
    }
    return name;
  }

  #toTask(row: TaskRow): Task {
    return makeTask({
      id: String(row.id),
      url: row.url,
      requestUrl: row.request_url,
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
