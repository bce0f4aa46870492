/**
 * Keys due at a time, earliest first (a binary min-heap): the hosts in their politeness gap,
 * so a pump visits the hosts whose wait ended, not every waiting host (docs/architecture.md,
 * _Waiting hosts_). A key set again keeps only its latest time; the older entry is skipped.
 */
export class DueQueue<K> {
  readonly #at: number[] = [];
  readonly #keys: K[] = [];
  readonly #latest = new Map<K, number>();

  get size(): number {
    return this.#latest.size;
  }

  /** When key is due (undefined: not queued). */
  dueAt(key: K): number | undefined {
    return this.#latest.get(key);
  }

  set(key: K, at: number): void {
    this.#latest.set(key, at);
    this.#push(at, key);
  }

  delete(key: K): boolean {
    return this.#latest.delete(key);
  }

  /** The earliest time a key is due, or +Infinity. */
  nextAt(): number {
    this.#dropStale();
    return this.#at.length > 0 ? this.#at[0]! : Number.POSITIVE_INFINITY;
  }

  /** Removes and returns the keys due at or before now, earliest first. */
  popDue(now: number): K[] {
    const due: K[] = [];
    for (;;) {
      this.#dropStale();
      if (this.#at.length === 0 || this.#at[0]! > now) return due;
      const key = this.#keys[0]!;
      this.#pop();
      this.#latest.delete(key);
      due.push(key);
    }
  }

  /** Heap tops that a later set() or a delete() replaced. */
  #dropStale(): void {
    while (this.#at.length > 0 && this.#latest.get(this.#keys[0]!) !== this.#at[0]) this.#pop();
  }

  #push(at: number, key: K): void {
    const a = this.#at;
    const k = this.#keys;
    let i = a.length;
    a.push(at);
    k.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (a[parent]! <= at) break;
      a[i] = a[parent]!;
      k[i] = k[parent]!;
      i = parent;
    }
    a[i] = at;
    k[i] = key;
  }

  #pop(): void {
    const a = this.#at;
    const k = this.#keys;
    const lastAt = a.pop()!;
    const lastKey = k.pop()!;
    const n = a.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && a[child + 1]! < a[child]!) child++;
      if (a[child]! >= lastAt) break;
      a[i] = a[child]!;
      k[i] = k[child]!;
      i = child;
    }
    a[i] = lastAt;
    k[i] = lastKey;
  }
}
