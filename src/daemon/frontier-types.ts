/**
 * What the frontier factories (frontier-factory.ts, redis-store-factory.ts) build: the
 * frontier and what the daemon needs to know about its kind. A module of its own so that
 * the Redis factory, loaded on demand, does not import the factory that loads it.
 */
import type { Clock } from '../core/clock.js';
import type { LocalRateLimiterOptions } from '../core/local-rate-limiter.js';
import type { Frontier } from '../ports/frontier.js';
import type { SyncRateLimiter } from '../ports/rate-limiter.js';
import type { SharedMapStore } from '../ports/shared-map.js';
import type { WorkSharing } from '../ports/work-sharing.js';

export interface FrontierDeps {
  readonly clock: Clock;
  /** Absolute data dir (the SQLite frontier's default home). */
  readonly dataDir: string;
  /** This daemon's instance id: the lease owner. */
  readonly instanceId: string;
  /** Connection state changes of a shared store, for logging (called once per change, not per retry). */
  readonly onConnection?: (up: boolean, err?: unknown) => void;
  /** Errors of the shared rate limiter's bucket fetches. */
  readonly onRateError?: (err: unknown) => void;
}

/** What a map store beside the frontier holds; its file name and key part. */
export type MapKind = 'cookies' | 'render' | 'limits' | 'traps';

export interface BuiltFrontier {
  readonly frontier: Frontier;
  /** frontier.open(), with an error that says which store could not be reached. */
  open(): Promise<void>;
  /**
   * Other daemons lease from and enqueue into the same frontier: at startup only this
   * daemon's own leases (its lease owner's) are reclaimed (recovery.ts).
   */
  readonly shared: boolean;
  /** False while the store cannot be reached (Redis down); always true for local stores. */
  healthy(): boolean;
  /** Scheduler settings the kind needs. */
  readonly scheduling: {
    /** > 0 when others enqueue work this daemon will not hear about. */
    readonly idlePollMs: number;
    /** Buffered tasks with less lease left than this are handed back, not started. */
    readonly minLeaseLeftMs?: number;
    /** Hunger told to and heard from the other daemons (engine/work-share.ts). */
    readonly workSharing?: WorkSharing;
  };
  /** Rate limiter with buckets shared through the store; undefined: in-process buckets. */
  readonly createRateLimiter?: (options: LocalRateLimiterOptions) => SyncRateLimiter;
  /**
   * Where the jobs' cookie jars (`cookies`) and render decisions (`render`) are kept, beside
   * the frontier: a SQLite file next to it (`KIND.db`), its Redis (shared by the daemons), or
   * memory; and, on Redis only, the daemons' host limits (`limits`, daemon/start-limits.ts). The
   * caller opens and closes it.
   */
  readonly createMapStore: (kind: MapKind) => SharedMapStore;
  /** Stops retries in flight (shutdown must not wait for a store that is down). */
  giveUp(): void;
  /** After frontier.close(): releases what the factory opened besides it. */
  close(): Promise<void>;
}

/** How often an idle daemon on a shared frontier looks for work others enqueued. */
export const SHARED_IDLE_POLL_MS = 500;
