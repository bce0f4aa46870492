/**
 * A Map bounded by recency of use, for per-host state (limiters, buckets, pauses, breakers).
 * A crawl can touch millions of hosts; keeping state for every one of them forever would leak,
 * so idle entries are forgotten once the map holds more than `maxSize`.
 *
 * Recency is approximated as the CLOCK algorithm does (second chance): get() only marks the
 * entry used, and eviction walks from the oldest insertion, giving a used entry one more round.
 * An exact LRU moved the entry to the back of the Map on every get (a delete and a set), and
 * with thousands of hosts those moves, and the rehashes of the Map's table they cause, made
 * the per-host lookups of a broad crawl several times dearer than on one host
 * (commit 1535deb).
 *
 * `canEvict` protects entries that must not be forgotten (a host with requests in flight, a
 * paused host): those are skipped, and if nothing can be evicted the map grows past maxSize
 * until something becomes evictable. Callers keep such entries bounded by other means (the
 * global in-flight ceiling bounds busy hosts).
 */
export class LruMap<K, V> {
  readonly #map = new Map<K, Entry<V>>();

  readonly #canEvict: (value: V, key: K) => boolean;
  readonly #onEvict: ((value: V, key: K) => void) | undefined;

  constructor(
    readonly maxSize: number,
    canEvict: (value: V, key: K) => boolean = () => true,
    onEvict?: (value: V, key: K) => void,
  ) {
    this.#canEvict = canEvict;
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#map.size;
  }

  /** Returns the value and marks it used (it gets a second chance before eviction). */
  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** Returns the value without touching its recency. */
  peek(key: K): V | undefined {
    return this.#map.get(key)?.value;
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, { value, used: false });
    this.#trim();
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  *entries(): IterableIterator<[K, V]> {
    for (const [key, entry] of this.#map) yield [key, entry.value];
  }

  #trim(): void {
    if (this.#map.size <= this.maxSize) return;
    // Oldest first (insertion order). A used entry goes to the back with its mark cleared, so
    // the loop meets it again after the others; an unused one that may go is forgotten.
    for (const [key, entry] of this.#map) {
      if (this.#map.size <= this.maxSize) return;
      if (!this.#canEvict(entry.value, key)) continue;
      if (entry.used) {
        entry.used = false;
        this.#map.delete(key);
        this.#map.set(key, entry);
        continue;
      }
      this.#map.delete(key);
      this.#onEvict?.(entry.value, key);
    }
  }
}

interface Entry<V> {
  readonly value: V;
  used: boolean;
}
