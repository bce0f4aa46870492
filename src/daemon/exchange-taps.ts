/**
 * The fetchers are built before the sinks open, so the tap hands each exchange to whichever WARC
 * sinks have opened since. Without a WARC sink there is no tap.
 */
import type { CrawldConfig } from '../config/config.js';
import type { ExchangeTap, HttpExchange } from '../ports/fetcher.js';

export class ExchangeTaps {
  readonly #taps: ExchangeTap[] = [];

  add(tap: ExchangeTap): void {
    this.#taps.push(tap);
  }

  readonly tap: ExchangeTap = (exchange: HttpExchange) => {
    const waits: Promise<void>[] = [];
    for (const t of this.#taps) {
      try {
        const kept = t(exchange);
        if (kept) waits.push(kept);
      } catch {
        // Each sink reports its own failures; one failing leaves the others their exchanges.
      }
    }
    if (waits.length === 0) return undefined;
    return waits.length === 1 ? waits[0] : Promise.all(waits).then(() => undefined);
  };
}

export function exchangeTapsFor(config: Pick<CrawldConfig, 'sinks'>): ExchangeTaps | undefined {
  return config.sinks.some((s) => s.kind === 'warc') ? new ExchangeTaps() : undefined;
}
