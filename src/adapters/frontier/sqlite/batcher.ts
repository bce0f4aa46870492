import type Database from 'better-sqlite3';

interface Op {
  run(): unknown;
  /** One statement: atomic by itself, so it needs no savepoint. */
  statement: boolean;
  resolve(value: unknown): void;
  reject(err: unknown): void;
}

/**
 * The writes of one event-loop turn in one transaction (a commit is most of a small write's cost).
 * With others, each call runs in a savepoint and fails alone; alone, it is the transaction (a
 * savepoint copies every page it changes). A promise settles after the commit.
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
      // The commit failed: nothing of the batch is written.
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
