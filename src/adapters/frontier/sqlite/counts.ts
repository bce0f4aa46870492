import type { Statements } from './statements.js';

type Bucket = 'pending' | 'dead' | 'all';

/** Counter changes made during one transaction, written once at its end. */
export class CountDeltas {
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

/** The state of a row due at `at`: ready now, or delayed until then. */
export const stateAt = (at: number, now: number) => (at <= now ? 'ready' : 'delayed');
