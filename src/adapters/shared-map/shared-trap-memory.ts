/** A job's trap decisions per host in a SharedMapStore; samples stay in this process. Hosts in
 *  memory are bounded: a forgotten host comes back with its stored decisions. */

import { LruMap } from '../../core/lru-map.js';
import { HostTraps, type StoredHostTraps } from '../../core/traps/host-traps.js';
import type { TrapOptions } from '../../core/traps/trap-options.js';
import type { MapChange, SharedMapStore } from '../../ports/shared-map.js';
import type { TrapMemory } from '../../ports/trap-memory.js';
import { type MapOp, MapSync } from './map-sync.js';

export interface StoredTrapMemoryOptions {
  readonly jobId: string;
  readonly store: SharedMapStore;
  readonly options: TrapOptions;
  readonly now: () => number;
  /** How often other daemons' decisions are read (shared stores). @default 1000 */
  readonly refreshMs?: number;
  /** @default 4096 */
  readonly maxHosts?: number;
  readonly onError?: (op: MapOp, error: unknown) => void;
}

export class StoredTrapMemory implements TrapMemory {
  readonly #o: StoredTrapMemoryOptions;
  readonly #hosts: LruMap<string, HostTraps>;
  readonly #stored = new Map<string, StoredHostTraps>();
  readonly #sync: MapSync;
  #anyStopped = false;

  constructor(options: StoredTrapMemoryOptions) {
    this.#o = options;
    this.#hosts = new LruMap(options.maxHosts ?? 4096);
    this.#sync = new MapSync({
      store: options.store,
      map: options.jobId,
      apply: (changes, reset) => this.#apply(changes, reset),
      now: options.now,
      ...(options.refreshMs !== undefined ? { refreshMs: options.refreshMs } : {}),
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  open(): Promise<void> {
    return this.#sync.load();
  }

  get(host: string): HostTraps {
    this.#sync.refresh();
    return this.#hosts.get(host) ?? this.#create(host);
  }

  peek(host: string): HostTraps | undefined {
    const h = this.#hosts.peek(host);
    if (h !== undefined) return h;
    // Rules learned before (a restart, another daemon) apply at once.
    return this.#stored.has(host) ? this.#create(host) : undefined;
  }

  #create(host: string): HostTraps {
    const h = new HostTraps(this.#o.options);
    const kept = this.#stored.get(host);
    if (kept !== undefined) h.restore(kept);
    this.#hosts.set(host, h);
    return h;
  }

  get anyStopped(): boolean {
    return this.#anyStopped;
  }

  save(host: string): void {
    const h = this.#hosts.peek(host);
    if (h === undefined) return;
    if (h.hasStopped) this.#anyStopped = true;
    const state = h.stored();
    this.#stored.set(host, state);
    void this.#sync.write([{ id: host, json: JSON.stringify(state) }]);
  }

  /** Waits for the decisions being written (shutdown). */
  close(): Promise<void> {
    return this.#sync.write([]);
  }

  #apply(changes: readonly MapChange[], reset: boolean): void {
    if (reset) this.#stored.clear();
    for (const c of changes) {
      if (c.json === undefined) {
        this.#stored.delete(c.id);
        continue;
      }
      let state: StoredHostTraps;
      try {
        state = JSON.parse(c.json) as StoredHostTraps;
      } catch {
        continue;
      }
      this.#stored.set(c.id, state);
      if (Array.isArray(state.stopped) && state.stopped.length > 0) this.#anyStopped = true;
      // Another daemon learned something: a host this one holds takes it at once.
      this.#hosts.peek(c.id)?.restore(state);
    }
  }
}
