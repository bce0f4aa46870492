/**
 * A Map bounded by least-recent use, for per-host state (limiters, buckets, pauses, breakers).
 * A crawl can touch millions of hosts; keeping state for every one of them forever would leak,
 * so idle entries are forgotten once the map holds more than `maxSize`.
 *
 * `canEvict` protects entries that must not be forgotten (a host with requests in flight, a
 * paused host): those are skipped, and if nothing can be evicted the map grows past maxSize
 * until something becomes evictable. Callers keep such entries bounded by other means (the
 * global in-flight ceiling bounds busy hosts).
 */
export class LruMap<K, V> {
  readonly #map = new Map<K, V>();

  constructor(
    readonly maxSize: number,
    private readonly canEvict: (value: V, key: K) => boolean = () => true,
    private readonly onEvict?: (value: V, key: K) => void,
  ) {}

  get size(): number {
    return this.#map.size;
  }

  /** Returns the value and marks it most recently used. */
  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  /** Returns the value without touching its recency. */
  peek(key: K): V | undefined {
    return this.#map.get(key);
  }

  has(key: K): boolean {
    return this.#map.has(key);
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    this.#trim();
  }

  delete(key: K): boolean {
    return this.#map.delete(key);
  }

  entries(): IterableIterator<[K, V]> {
    return this.#map.entries();
  }

  #trim(): void {
    if (this.#map.size <= this.maxSize) return;
    // Map iteration is insertion order, and get/set re-insert, so the first entries are the LRU ones.
    for (const [key, value] of this.#map) {
      if (this.#map.size <= this.maxSize) return;
      if (!this.canEvict(value, key)) continue;
      this.#map.delete(key);
      this.onEvict?.(value, key);
    }
  }
}
