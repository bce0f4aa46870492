/** Named maps that outlive the process beside the frontier; shared stores keep a version and a change log. */

export interface MapChange {
  readonly id: string;
  readonly json?: string;
}

export interface MapSnapshot {
  readonly entries: readonly MapChange[];
  readonly version: number;
}

export interface MapChanges {
  /** `reset`: every stored entry instead. */
  readonly changes: readonly MapChange[];
  readonly reset: boolean;
  readonly version: number;
}

export interface SharedMapStore {
  readonly shared: boolean;
  open(): Promise<void>;
  load(map: string): Promise<MapSnapshot>;
  write(map: string, changes: readonly MapChange[]): Promise<void>;
  changesSince(map: string, version: number): Promise<MapChanges>;
  close(): Promise<void>;
}
