/**
 * A store of named maps (id → JSON) that outlives the process, beside the frontier: a SQLite
 * file for a SQLite frontier, the frontier's Redis for a Redis frontier (shared by its
 * daemons: each map has a version and a log of changes, so a daemon reads only what the others
 * changed since it last looked), nothing for memory. The cookie jars (one map per job), the
 * render decisions of `render: { kind: auto }` (one per job) and, on Redis, the daemons' host
 * limits (limit hints, one map) live in such stores.
 */

/** One entry's new state: its id and its JSON, or no JSON when it was removed. */
export interface MapChange {
  readonly id: string;
  readonly json?: string;
}

export interface MapSnapshot {
  /** The stored entries (json always set). */
  readonly entries: readonly MapChange[];
  /** The map's version at the snapshot: changesSince() starts from it. */
  readonly version: number;
}

export interface MapChanges {
  /** Changes after the given version, oldest first; when `reset`, every stored entry instead. */
  readonly changes: readonly MapChange[];
  readonly reset: boolean;
  readonly version: number;
}

export interface SharedMapStore {
  /** Other daemons write to this store too: readers ask for their changes (changesSince). */
  readonly shared: boolean;
  open(): Promise<void>;
  load(map: string): Promise<MapSnapshot>;
  /** Applies changes in order; resolves when they are stored (and, if shared, visible to others). */
  write(map: string, changes: readonly MapChange[]): Promise<void>;
  /** What changed after `version` (shared stores; others answer no changes). */
  changesSince(map: string, version: number): Promise<MapChanges>;
  close(): Promise<void>;
}
