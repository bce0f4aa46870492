/**
 * undici's dispatcher factory with the Pool's waiting queue swapped for one that starts empty:
 * undici preallocates 2,048 slots per host, nearly always unused under our host limits
 * (docs/history.md). Where the private queue symbol is not found, the Pool keeps its own.
 */
import { Client, type Dispatcher, Pool } from 'undici';

/** A FIFO with FixedQueue's interface, grown on demand. */
export class SmallQueue<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  isEmpty(): boolean {
    return this.#head === this.#items.length;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  shift(): T | null {
    if (this.#head === this.#items.length) return null;
    const item = this.#items[this.#head] as T;
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) {
      // Drained: a burst's slots do not stay allocated.
      this.#items = [];
      this.#head = 0;
    } else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  get size(): number {
    return this.#items.length - this.#head;
  }
}

/** undici's `Symbol('queue')` on a Pool, if any. */
export function poolQueueKey(pool: object): symbol | undefined {
  return Object.getOwnPropertySymbols(pool).find((s) => {
    if (s.description !== 'queue') return false;
    const q = (pool as Record<symbol, unknown>)[s] as Partial<SmallQueue<unknown>> | undefined;
    return (
      typeof q?.isEmpty === 'function' &&
      typeof q.push === 'function' &&
      typeof q.shift === 'function' &&
      q.isEmpty()
    );
  });
}

/** Looked up on the first Pool, the same for all (null: not found). */
let queueKey: symbol | null | undefined;

export function lightDispatcherFactory(origin: string | URL, opts: object): Dispatcher {
  const o = opts as Pool.Options;
  if (o.connections === 1) return new Client(origin, o);
  const pool = new Pool(origin, o);
  if (queueKey === undefined) queueKey = poolQueueKey(pool) ?? null;
  if (queueKey !== null) (pool as unknown as Record<symbol, unknown>)[queueKey] = new SmallQueue();
  return pool;
}
