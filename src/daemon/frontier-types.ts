/**
 * What the frontier factories build. A module of its own so that the Redis factory, loaded on
 * demand, does not import the factory that loads it.
 */
import type { Clock } from '../core/clock.js';
import type { LocalRateLimiterOptions } from '../core/local-rate-limiter.js';
import type { Frontier } from '../ports/frontier.js';
import type { SyncRateLimiter } from '../ports/rate-limiter.js';
import type { SharedMapStore } from '../ports/shared-map.js';
import type { WorkSharing } from '../ports/work-sharing.js';

export interface FrontierDeps {
  readonly clock: Clock;
  readonly dataDir: string;
  /** The lease owner. */
  readonly instanceId: string;
  /** Called once per change of a shared store's connection, not per retry. */
  readonly onConnection?: (up: boolean, err?: unknown) => void;
  readonly onRateError?: (err: unknown) => void;
}

export type MapKind = 'cookies' | 'render' | 'limits' | 'traps';

export interface BuiltFrontier {
  readonly frontier: Frontier;
  open(): Promise<void>;
  /** Other daemons share it: at start only this daemon's own leases are reclaimed (lease-recovery.ts). */
  readonly shared: boolean;
  /** False while the store cannot be reached (Redis down); always true for local stores. */
  healthy(): boolean;
  readonly scheduling: {
    /** > 0 when others enqueue work this daemon will not hear about. */
    readonly idlePollMs: number;
    /** Buffered tasks with less lease left than this are handed back, not started. */
    readonly minLeaseLeftMs?: number;
    /** Hunger told to and heard from the other daemons (engine/scheduler/work-share.ts). */
    readonly workSharing?: WorkSharing;
  };
  /** Undefined: in-process buckets. */
  readonly createRateLimiter?: (options: LocalRateLimiterOptions) => SyncRateLimiter;
  /**
   * A SQLite file next to the frontier (`KIND.db`), its Redis (shared by the daemons), or memory;
   * the caller opens and closes it.
   */
  readonly createMapStore: (kind: MapKind) => SharedMapStore;
  /** Stops retries in flight: shutdown must not wait for a store that is down. */
  giveUp(): void;
  close(): Promise<void>;
}

/** How often an idle daemon on a shared frontier looks for work others enqueued. */
export const SHARED_IDLE_POLL_MS = 500;
