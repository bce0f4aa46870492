/** One process's copy of a SharedMapStore map: writes in order, others' changes read before a read
 *  that must see them (callers during a sync share the next: the one in flight may predate them). */
import type { MapChange, SharedMapStore } from '../../ports/shared-map.js';

export type MapOp = 'load' | 'write' | 'sync';

export interface MapSyncOptions {
  readonly store: SharedMapStore;
  readonly map: string;
  /** Applies stored changes to the local copy: the load (reset), or other writers' changes. */
  readonly apply: (changes: readonly MapChange[], reset: boolean) => void;
  /** The store failed: the local copy goes on as it is. */
  readonly onError?: (op: MapOp, error: unknown) => void;
  /** @default Date.now */
  readonly now?: () => number;
  /** refresh() reads other daemons' changes at most this often. @default 1000 */
  readonly refreshMs?: number;
}

export class MapSync {
  readonly #o: MapSyncOptions;
  #version = 0;
  #syncing: Promise<void> | undefined;
  #nextSync: Promise<void> | undefined;
  /** Writes in flight, in order (a later write must not overtake an earlier one). */
  #writing: Promise<void> = Promise.resolve();
  #refreshedAt = Number.NEGATIVE_INFINITY;

  constructor(options: MapSyncOptions) {
    this.#o = options;
  }

  /** A store that cannot be read leaves the copy empty. */
  async load(): Promise<void> {
    this.#refreshedAt = this.#now();
    try {
      const snap = await this.#o.store.load(this.#o.map);
      this.#o.apply(snap.entries, true);
      this.#version = snap.version;
    } catch (err) {
      this.#o.onError?.('load', err);
    }
  }

  /** For hot paths: starts a fresh() (not awaited) once `refreshMs` passed since the last. */
  refresh(): void {
    const now = this.#now();
    if (now - this.#refreshedAt < (this.#o.refreshMs ?? 1000)) return;
    this.#refreshedAt = now;
    void this.fresh();
  }

  #now(): number {
    return this.#o.now?.() ?? Date.now();
  }

  /** Resolves when changes made by others before this call are applied (at once if not shared). */
  fresh(): Promise<void> {
    if (!this.#o.store.shared) return Promise.resolve();
    if (!this.#syncing) {
      this.#syncing = this.#sync().finally(() => {
        this.#syncing = undefined;
      });
      return this.#syncing;
    }
    this.#nextSync ??= this.#syncing.then(() => {
      this.#nextSync = undefined;
      return this.fresh();
    });
    return this.#nextSync;
  }

  /** Stores this copy's changes after those before them; resolves when stored (never rejects). */
  write(changes: readonly MapChange[]): Promise<void> {
    if (changes.length === 0) return this.#writing;
    this.#writing = this.#writing.then(() =>
      this.#o.store.write(this.#o.map, changes).catch((err: unknown) => this.#o.onError?.('write', err)),
    );
    return this.#writing;
  }

  async #sync(): Promise<void> {
    try {
      const got = await this.#o.store.changesSince(this.#o.map, this.#version);
      if (got.version === this.#version && !got.reset) return;
      this.#o.apply(got.changes, got.reset);
      this.#version = got.version;
    } catch (err) {
      this.#o.onError?.('sync', err);
    }
  }
}
