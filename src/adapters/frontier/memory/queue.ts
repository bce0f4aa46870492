/** The memory frontier's pending tasks: ready by (priority, seq), delayed by notBefore (O(n) inserts). */

export type State = 'ready' | 'delayed' | 'leased' | 'done' | 'dead';

export interface Rec {
  readonly id: number;
  readonly url: string;
  readonly requestUrl: string | undefined;
  readonly host: string;
  readonly jobId: string;
  priority: number;
  depth: number;
  state: State;
  notBefore: number;
  seq: number;
  attempts: number;
  generation: number;
  leaseToken?: string | undefined;
  leaseOwner?: string | undefined;
  leaseExpiresAt?: number | undefined;
  lastError?: string | undefined;
  deadAt?: number | undefined;
  deadReason?: string | undefined;
}

type Order = (a: Rec, b: Rec) => number;
const byPriority: Order = (a, b) => a.priority - b.priority || a.seq - b.seq;
const byTime: Order = (a, b) => a.notBefore - b.notBefore || a.seq - b.seq;

function insertSorted(list: Rec[], rec: Rec, order: Order): void {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (order(list[mid]!, rec) < 0) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, rec);
}

export class PendingQueue {
  readonly #ready: Rec[] = [];
  readonly #delayed: Rec[] = [];
  readonly #byPriority = new Map<number, number>();

  get size(): number {
    return this.#ready.length + this.#delayed.length;
  }

  /** Adds rec as ready or delayed depending on its notBefore; the caller sets seq. */
  add(rec: Rec, now: number): void {
    this.#count(rec.priority, 1);
    if (rec.notBefore <= now) {
      rec.state = 'ready';
      insertSorted(this.#ready, rec, byPriority);
    } else {
      rec.state = 'delayed';
      insertSorted(this.#delayed, rec, byTime);
    }
  }

  promote(now: number): void {
    let due = 0;
    while (due < this.#delayed.length && this.#delayed[due]!.notBefore <= now) due++;
    for (const rec of this.#delayed.splice(0, due)) {
      rec.state = 'ready';
      insertSorted(this.#ready, rec, byPriority);
    }
  }

  /** Removes and returns up to max ready tasks in lease order, skipping excluded hosts. */
  take(max: number, exclude: ReadonlySet<string> | undefined): Rec[] {
    const picked: number[] = [];
    for (let i = 0; i < this.#ready.length && picked.length < max; i++) {
      if (!exclude?.has(this.#ready[i]!.host)) picked.push(i);
    }
    const taken = picked.map((i) => this.#ready[i]!);
    if (picked.at(-1) === picked.length - 1) {
      this.#ready.splice(0, picked.length); // the common case: a prefix, one memmove
    } else {
      // Back to front so the remaining indices stay valid.
      for (let k = picked.length - 1; k >= 0; k--) this.#ready.splice(picked[k]!, 1);
    }
    for (const rec of taken) this.#count(rec.priority, -1);
    return taken;
  }

  delayedCount(now: number): number {
    let n = 0;
    for (const rec of this.#delayed) if (rec.notBefore > now) n++;
    return n;
  }

  /** notBefore of the head of the ready list and of the earliest delayed task. */
  headTimes(): number[] {
    return [this.#ready[0], this.#delayed[0]].filter((r) => r !== undefined).map((r) => r.notBefore);
  }

  countsByPriority(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [priority, n] of [...this.#byPriority].sort((a, b) => a[0] - b[0])) out[String(priority)] = n;
    return out;
  }

  #count(priority: number, delta: number): void {
    const n = (this.#byPriority.get(priority) ?? 0) + delta;
    if (n === 0) this.#byPriority.delete(priority);
    else this.#byPriority.set(priority, n);
  }
}
