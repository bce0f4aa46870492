/**
 * The per-host dispatcher factory of the fetcher's agent and of its proxy agents: undici's own
 * (a Client for one connection, else a Pool), with the Pool's waiting queue swapped for one
 * that starts empty.
 *
 * Why: undici's Pool holds its waiting requests in a FixedQueue whose first ring is a
 * preallocated array of 2,048 slots (16 KB), whether or not a request ever waits. crawld's host
 * limits keep a host's requests within its connections, so that queue is nearly always empty;
 * over a crawl of 2,000 hosts the rings were 33 MB of a ~130 MB heap, allocated at each host's
 * first request in the young generation and copied out of it by the next scavenges
 * (commit 991120f; docs/history.md).
 *
 * The swap needs the Pool's queue field, which undici keeps under a private symbol: where it is
 * not found (another undici), the Pool keeps its own queue and only the memory is lost.
 */
import { Client, type Dispatcher, Pool } from 'undici';

/** A FIFO with FixedQueue's interface (isEmpty, push, shift → item or null), grown on demand. */
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
      // Drained: start again from an empty array, so a burst's slots do not stay allocated.
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

/** The Pool's own queue field (undici's `Symbol('queue')`), or undefined where there is none. */
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

/**
 * The queue field of undici's Pools, looked up on the first Pool: the symbol is undici's, the
 * same for every Pool (null: not found).
 */
let queueKey: symbol | null | undefined;

/** undici's default factory, whose Pools wait in a SmallQueue. */
export function lightDispatcherFactory(origin: string | URL, opts: object): Dispatcher {
  const o = opts as Pool.Options;
  if (o.connections === 1) return new Client(origin, o);
  const pool = new Pool(origin, o);
  if (queueKey === undefined) queueKey = poolQueueKey(pool) ?? null;
  if (queueKey !== null) (pool as unknown as Record<symbol, unknown>)[queueKey] = new SmallQueue();
  return pool;
}
