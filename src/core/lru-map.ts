/**
 * A Map bounded by recency, for per-host state. CLOCK (second chance): get() only marks the entry; an exact LRU's
 * delete-and-set on every get cost broad crawls dearly. `canEvict` protects busy or paused hosts.
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

  /** Marks the entry used (a second chance). */
  get(key: K): V | undefined {
    const entry = this.#map.get(key);
    if (entry === undefined) return undefined;
    entry.used = true;
    return entry.value;
  }

  /** Without touching recency. */
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
    // Oldest first; a used entry goes to the back with its mark cleared.
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
