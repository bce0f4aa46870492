import pg from 'pg';
import { backoffDelayMs } from '../../core/backoff.js';
import { systemRandom } from '../../core/clock.js';
import { SinkError } from '../../core/errors.js';
import { NO_SINK_OBSERVER, type ResultRecord, type Sink } from '../../ports/sink.js';
import { insertRows } from './postgres-insert.js';
import {
  describePgError,
  isTransientPgError,
  type PgRow,
  quoteTable,
  rowsOf,
  tableDdl,
} from './postgres-rows.js';
import { POSTGRES_SINK_DEFAULTS, type PostgresSinkOptions } from './postgres-sink-options.js';

export { POSTGRES_SINK_DEFAULTS, type PostgresSinkOptions };

interface Entry {
  readonly rows: PgRow[];
  readonly at: number;
  resolve(): void;
  reject(err: unknown): void;
}

const SINK = 'postgres';

/**
 * Results as PostgreSQL rows keyed by (url, record_key, item), inserted ON CONFLICT: a record
 * written again after a crash makes no second row (docs/sinks.md). write() resolves once its
 * batch commits, so batches gather the tasks in flight; a full buffer makes write() wait, which
 * slows fetching instead of growing memory. Transient failures are retried while open.
 */
export class PostgresSink implements Sink {
  readonly name = SINK;
  readonly #o: PostgresSinkOptions;
  readonly #table: string;
  #pool: pg.Pool | undefined;
  #queue: Entry[] = [];
  #depth = 0;
  #roomWaiters: (() => void)[] = [];
  #running: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #closing = false;
  #closeDeadline = Number.POSITIVE_INFINITY;

  constructor(options: Partial<PostgresSinkOptions> & { url: string }) {
    this.#o = {
      ...POSTGRES_SINK_DEFAULTS,
      observer: NO_SINK_OBSERVER,
      random: systemRandom,
      ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)),
    } as PostgresSinkOptions;
    this.#table = quoteTable(this.#o.table);
  }

  get depth(): number {
    return this.#depth;
  }

  async open(): Promise<void> {
    if (this.#pool) return;
    const pool = new pg.Pool({
      connectionString: this.#o.url,
      max: 2,
      connectionTimeoutMillis: 5_000,
      idleTimeoutMillis: 30_000,
      application_name: 'crawld',
    });
    // An idle client whose server went away must not become an uncaught exception.
    pool.on('error', () => this.#o.observer.error({ sink: SINK, reason: 'connection' }));
    try {
      for (const sql of tableDdl(this.#o.table)) {
        try {
          await pool.query(sql);
        } catch (err) {
          // Two daemons creating the table at once: the loser sees a duplicate, which is fine.
          const code = (err as { code?: string }).code;
          if (code !== '23505' && code !== '42P07') throw err;
        }
      }
    } catch (err) {
      await pool.end().catch(() => {});
      throw new SinkError(`postgres sink: cannot prepare table ${this.#o.table}: ${describePgError(err)}`, {
        cause: err,
      });
    }
    this.#pool = pool;
    this.#closed = undefined;
    this.#closing = false;
    this.#closeDeadline = Number.POSITIVE_INFINITY;
  }

  async write(record: ResultRecord): Promise<void> {
    if (!this.#pool || this.#closing) throw new SinkError('postgres sink is not open');
    const rows = rowsOf(record);
    if (rows.length === 0) return;
    // A page bigger than the whole buffer is still taken when the buffer is empty.
    while (this.#depth > 0 && this.#depth + rows.length > this.#o.maxBuffer) {
      await new Promise<void>((resolve) => this.#roomWaiters.push(resolve));
      if (this.#closing) throw new SinkError('postgres sink closed while waiting for room');
    }
    const done = new Promise<void>((resolve, reject) => {
      this.#queue.push({ rows, at: performance.now(), resolve, reject });
    });
    this.#depth += rows.length;
    this.#report();
    if (this.#queuedRows() >= this.#o.batchSize) this.#wake?.();
    this.#running ??= this.#run();
    return done;
  }

  async flush(): Promise<void> {
    while (this.#running) {
      this.#flushNow = true;
      this.#wake?.();
      await this.#running;
    }
    this.#flushNow = false;
  }

  #flushNow = false;

  async recover(keys: ReadonlySet<string>): Promise<Set<string>> {
    const found = new Set<string>();
    const pool = this.#pool;
    if (keys.size === 0 || !pool) return found;
    await this.flush();
    const all = [...keys];
    for (let i = 0; i < all.length; i += 10_000) {
      const res = await pool.query<{ record_key: string }>(
        `SELECT DISTINCT record_key FROM ${this.#table} WHERE record_key = ANY($1::text[])`,
        [all.slice(i, i + 10_000)],
      );
      for (const r of res.rows) found.add(r.record_key);
    }
    return found;
  }

  /**
   * Called at the drain deadline: a database that stays down is retried only until
   * closeTimeoutMs, then waiting writes fail (their tasks, never acked, come back at next start).
   */
  beginClose(): void {
    if (this.#closing || !this.#pool) return;
    this.#closing = true;
    this.#closeDeadline = performance.now() + this.#o.closeTimeoutMs;
    for (const w of this.#roomWaiters.splice(0)) w();
    this.#wake?.();
  }

  async close(): Promise<void> {
    this.#closed ??= (async () => {
      const pool = this.#pool;
      if (!pool) return;
      this.beginClose();
      while (this.#running) await this.#running;
      this.#pool = undefined;
      await pool.end().catch(() => {});
    })();
    await this.#closed;
  }

  #closed: Promise<void> | undefined;

  #queuedRows(): number {
    let n = 0;
    for (const e of this.#queue) n += e.rows.length;
    return n;
  }

  #report(): void {
    this.#o.observer.bufferDepth({ sink: SINK, depth: this.#depth });
  }

  /** The single writer: one batch in flight at a time, so rows are stored in arrival order. */
  async #run(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const oldest = this.#queue[0]!;
        const due = oldest.at + this.#o.flushIntervalMs - performance.now();
        if (!this.#closing && !this.#flushNow && due > 0 && this.#queuedRows() < this.#o.batchSize) {
          await this.#sleep(due);
          continue;
        }
        const batch: Entry[] = [];
        let rows = 0;
        while (
          this.#queue.length > 0 &&
          (batch.length === 0 || rows + this.#queue[0]!.rows.length <= this.#o.batchSize)
        ) {
          const e = this.#queue.shift()!;
          batch.push(e);
          rows += e.rows.length;
        }
        await this.#store(batch);
        this.#depth -= rows;
        this.#report();
        for (const w of this.#roomWaiters.splice(0)) w();
      }
    } finally {
      this.#running = undefined;
    }
  }

  async #store(batch: Entry[]): Promise<void> {
    const started = performance.now();
    const rows = batch.flatMap((e) => e.rows);
    const err = await this.#insertRetrying(rows);
    if (err === undefined) {
      this.#o.observer.batch({ sink: SINK, records: rows.length, durationMs: performance.now() - started });
      for (const e of batch) e.resolve();
      return;
    }
    if (batch.length > 1 && !isTransientPgError(err)) {
      // One bad record must not fail the others: find it by writing each record alone.
      for (const e of batch) await this.#store([e]);
      return;
    }
    const failure = new SinkError(`postgres sink: ${describePgError(err)}`, { cause: err });
    for (const e of batch) e.reject(failure);
  }

  /** Undefined on success; the last error when it is permanent or the close deadline passed. */
  async #insertRetrying(rows: PgRow[]): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      const pool = this.#pool;
      if (!pool) return new SinkError('postgres sink closed');
      try {
        await insertRows(pool, this.#table, rows, this.#o.onConflict);
        return undefined;
      } catch (err) {
        const transient = isTransientPgError(err);
        this.#o.observer.error({ sink: SINK, reason: transient ? 'transient' : 'permanent' });
        if (!transient) return err;
        const delay = backoffDelayMs(
          attempt,
          { baseMs: this.#o.retryBaseMs, maxMs: this.#o.retryMaxMs, jitter: 'equal' },
          this.#o.random,
        );
        if (performance.now() + delay > this.#closeDeadline) return err;
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = () => {
        this.#wake = undefined;
        done();
      };
    });
  }
}
