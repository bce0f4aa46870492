/** Limit hints (core/limit/limit-hints.ts) per host and daemon (`host|instance` → `{"l", "t"}`),
 *  written and read every `periodMs`: a new daemon starts each host near the others' limits. */
import type { Clock, Timer } from '../../core/clock.js';
import { HostLimitHints, LimitPublisher } from '../../core/limit/limit-hints.js';
import type { MapChange, SharedMapStore } from '../../ports/shared-map.js';
import { type MapOp, MapSync } from './map-sync.js';

/** http limits only: a browser host's limit depends on each daemon's pool. */
export const HTTP_LIMITS_MAP = 'http';

export interface StoredLimitHintsOptions {
  readonly store: SharedMapStore;
  readonly instanceId: string;
  readonly clock: Clock;
  /** The host's limit here if it has an http limiter (undefined: forgotten, or not http). */
  readonly current: (host: string) => number | undefined;
  /** How often entries are written and the others' read. @default 1000 */
  readonly periodMs?: number;
  /** The store failed: hints go on from what was read before. */
  readonly onError?: (op: MapOp, error: unknown) => void;
}

export class StoredLimitHints {
  readonly #o: StoredLimitHintsOptions;
  readonly #hints = new HostLimitHints();
  readonly #publisher = new LimitPublisher();
  readonly #sync: MapSync;
  #timer: Timer | undefined;
  #closed = false;

  constructor(options: StoredLimitHintsOptions) {
    this.#o = options;
    this.#sync = new MapSync({
      store: options.store,
      map: HTTP_LIMITS_MAP,
      apply: (changes, reset) => this.#apply(changes, reset),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  async open(): Promise<void> {
    await this.#sync.load();
    this.#arm();
  }

  /** Where a new http host's limit may start (HostLimitHints.hint); undefined: nothing known. */
  hint(host: string): number | undefined {
    return this.#hints.hint(host, this.#o.clock.now());
  }

  /** A host's http limit changed here; `initialLimit`: where such a limit starts. */
  changed(host: string, limit: number, initialLimit: number): void {
    this.#publisher.changed(host, limit, initialLimit);
  }

  /** One round: what is due written, the others' changes read. */
  async tick(): Promise<void> {
    await Promise.all([this.#publish(), this.#sync.fresh()]);
  }

  /** Stops the rounds and writes what is due (a daemon's last limits help the next one). */
  close(): Promise<void> {
    this.#closed = true;
    this.#timer?.cancel();
    return this.#publish();
  }

  #publish(): Promise<void> {
    const now = this.#o.clock.now();
    const changes: MapChange[] = this.#publisher.due(now, this.#o.current).map((w) => ({
      id: `${w.host}|${this.#o.instanceId}`,
      ...(w.limit === undefined ? {} : { json: JSON.stringify({ l: w.limit, t: now }) }),
    }));
    return this.#sync.write(changes);
  }

  #arm(): void {
    if (this.#closed) return;
    this.#timer = this.#o.clock.setTimer(() => {
      void this.tick();
      this.#arm();
    }, this.#o.periodMs ?? 1000);
  }

  #apply(changes: readonly MapChange[], reset: boolean): void {
    if (reset) this.#hints.clear();
    for (const c of changes) {
      // Hosts never hold a '|'; instance ids may.
      const bar = c.id.indexOf('|');
      if (bar <= 0) continue;
      const host = c.id.slice(0, bar);
      const instance = c.id.slice(bar + 1);
      this.#hints.set(host, instance, c.json === undefined ? undefined : parseEntry(c.json));
    }
  }
}

/** An entry's JSON; undefined for one that is not `{l: positive number, t: number}`. */
function parseEntry(json: string): { limit: number; at: number } | undefined {
  try {
    const v = JSON.parse(json) as { l?: unknown; t?: unknown };
    if (typeof v.l === 'number' && v.l > 0 && typeof v.t === 'number') return { limit: v.l, at: v.t };
  } catch {
    // Not ours: no hint.
  }
  return undefined;
}
