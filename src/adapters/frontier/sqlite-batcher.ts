import type Database from 'better-sqlite3';

interface Op {
  run(): unknown;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * Groups the writes issued within one turn of the event loop into one transaction. A commit
 * is the expensive part of a small SQLite write (WAL append and lock round trip), and a
 * crawler at full speed issues thousands of small writes a second (an enqueue of a page's
 * links, an ack). Each call keeps its own atomicity: multi-statement calls are transaction
 * functions, which nest as savepoints, so one failing call rolls back alone and rejects
 * alone while the others commit. A call's promise settles only after the commit, so a
 * caller that awaits sees its write durable.
 */
export class WriteBatcher {
  #ops: Op[] = [];
  #scheduled = false;

  constructor(private readonly db: Database.Database) {}

  run<T>(fn: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#ops.push({ run: fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.#scheduled) {
        this.#scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything queued now (also called before close). */
  flush(): void {
    this.#scheduled = false;
    const ops = this.#ops;
    this.#ops = [];
    if (ops.length === 0) return;
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      this.db
        .transaction(() => {
          for (const op of ops) {
            try {
              outcomes.push({ ok: true, value: op.run() });
            } catch (err) {
              outcomes.push({ ok: false, err });
            }
          }
        })
        .immediate();
    } catch (err) {
      // The commit itself failed (disk full, database locked past busy_timeout): nothing of
      // the batch is written, so every call fails.
      for (const op of ops) op.reject(err);
      return;
    }
    ops.forEach((op, i) => {
      const o = outcomes[i]!;
      if (o.ok) op.resolve(o.value);
      else op.reject(o.err);
    });
  }
}
