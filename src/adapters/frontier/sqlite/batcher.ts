import type Database from 'better-sqlite3';

interface Op {
  run(): unknown;
  /** One statement: atomic by itself, so it needs no savepoint. */
  statement: boolean;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * Groups the writes issued within one turn of the event loop into one transaction. A commit
 * is the expensive part of a small SQLite write (WAL append and lock round trip), and a
 * crawler at full speed issues thousands of small writes a second (an enqueue of a page's
 * links, an ack). Each call keeps its own atomicity: alone in a turn, it is the whole
 * transaction; with others, each runs in a savepoint, so one failing call rolls back alone
 * and rejects alone while the others commit. (Not a savepoint always: a savepoint copies
 * every page it changes to a sub-journal first, and an enqueue of 1000 new URLs changes
 * hundreds of pages of the dedupe tables and indexes.) A call's promise settles only after
 * the commit, so a caller that awaits sees its write durable.
 */
export class WriteBatcher {
  #ops: Op[] = [];
  #scheduled = false;
  /** Runs f in a transaction, or in a savepoint when called inside one. */
  readonly #atomic: Database.Transaction<(f: () => unknown) => unknown>;

  constructor(db: Database.Database) {
    this.#atomic = db.transaction((f: () => unknown) => f());
  }

  /** Runs fn in the next commit; `statement` says fn runs a single statement (see Op). */
  run<T>(fn: () => T, statement = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#ops.push({ run: fn, statement, resolve: resolve as (v: unknown) => void, reject });
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
    if (ops.length === 1) {
      const op = ops[0]!;
      let value: unknown;
      try {
        value = this.#atomic.immediate(op.run);
      } catch (err) {
        op.reject(err); // the call failed or the commit did: nothing of it is written
        return;
      }
      op.resolve(value);
      return;
    }
    const outcomes: Array<{ ok: true; value: unknown } | { ok: false; err: unknown }> = [];
    try {
      this.#atomic.immediate(() => {
        for (const op of ops) {
          try {
            outcomes.push({ ok: true, value: op.statement ? op.run() : this.#atomic(op.run) });
          } catch (err) {
            outcomes.push({ ok: false, err });
          }
        }
      });
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
