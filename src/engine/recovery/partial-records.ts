import type { Sink } from '../../ports/sink.js';

/**
 * Records a crash left in some sinks only: the refetch writes only to the others, so a sink that
 * does not dedupe (JSONL) never holds one twice. In memory: a second crash recomputes it.
 */
export class PartialRecords {
  readonly #held = new Map<string, Set<Sink>>();

  add(key: string, sink: Sink): void {
    const sinks = this.#held.get(key) ?? new Set<Sink>();
    sinks.add(sink);
    this.#held.set(key, sinks);
  }

  holds(key: string, sink: Sink): boolean {
    return this.#held.get(key)?.has(sink) ?? false;
  }

  done(key: string): void {
    this.#held.delete(key);
  }

  get size(): number {
    return this.#held.size;
  }
}
