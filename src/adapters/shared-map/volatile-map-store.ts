import type { MapChange, MapChanges, MapSnapshot, SharedMapStore } from '../../ports/shared-map.js';

/** A memory frontier's: what it holds lives as long as the process, like the frontier itself. */
export class VolatileMapStore implements SharedMapStore {
  readonly shared = false;
  async open(): Promise<void> {}
  async load(): Promise<MapSnapshot> {
    return { entries: [], version: 0 };
  }
  async write(_map: string, _changes: readonly MapChange[]): Promise<void> {}
  async changesSince(_map: string, version: number): Promise<MapChanges> {
    return { changes: [], reset: false, version };
  }
  async close(): Promise<void> {}
}
