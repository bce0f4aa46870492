/**
 * Where a job's cookie jar is kept across restarts, beside the frontier: a SQLite file for a
 * SQLite frontier, the Redis of a Redis frontier (shared by its daemons), nothing for memory.
 */

/** One cookie's new state: its identity and tough-cookie's JSON of it, or undefined when removed. */
export interface CookieChange {
  /** The cookie's identity in the jar (RFC 6265 §5.3: domain, path and name). */
  readonly id: string;
  readonly json?: string;
}

export interface CookieSnapshot {
  /** The stored cookies (json always set). */
  readonly cookies: readonly CookieChange[];
  /** The store's version at the snapshot: changesSince() starts from it. */
  readonly version: number;
}

export interface CookieChanges {
  /** Changes after the given version, oldest first; when `reset`, every stored cookie instead. */
  readonly changes: readonly CookieChange[];
  readonly reset: boolean;
  readonly version: number;
}

export interface CookieStore {
  /** Other daemons write to this store too: a jar asks for their changes before each request. */
  readonly shared: boolean;
  open(): Promise<void>;
  load(jobId: string): Promise<CookieSnapshot>;
  /** Applies changes in order; resolves when they are stored (and, if shared, visible to others). */
  write(jobId: string, changes: readonly CookieChange[]): Promise<void>;
  /** What changed after `version` (shared stores; others answer no changes). */
  changesSince(jobId: string, version: number): Promise<CookieChanges>;
  close(): Promise<void>;
}
