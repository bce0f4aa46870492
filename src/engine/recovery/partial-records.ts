import type { Sink } from '../../ports/sink.js';

/**
 * Records a crashed process left in some of their sinks but not all (it died between two
 * sinks' writes). Such a task is fetched again, and its record is then written only to the
 * sinks that lack it, so a sink that does not dedupe (JSONL) never holds it twice. In memory:
 * a second crash before the refetch recomputes the same from the sinks at the next start.
 */
export class PartialRecords {
  readonly #held = new Map<string, Set<Sink>>();

  /** `sink` already holds the record `key`. */
  add(key: string, sink: Sink): void {
    const sinks = this.#held.get(key) ?? new Set<Sink>();
    sinks.add(sink);
    this.#held.set(key, sinks);
  }

  holds(key: string, sink: Sink): boolean {
    return this.#held.get(key)?.has(sink) ?? false;
  }

  /** The record is now in every sink. */
  done(key: string): void {
    this.#held.delete(key);
  }

  get size(): number {
    return this.#held.size;
  }
}
