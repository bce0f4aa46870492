/**
 * Builds the frontier from config (part of the composition root), with what the rest of
 * the daemon needs to know about its kind: whether other daemons share it, how to probe
 * its health, and (for Redis) the shared rate limiter on the same connection.
 */
import { join, resolve } from 'node:path';
import { MemoryFrontier } from '../adapters/frontier/memory.js';
import { SqliteFrontier } from '../adapters/frontier/sqlite.js';
import { type Clock, systemClock } from '../core/clock.js';
import type { LocalRateLimiterOptions } from '../core/local-rate-limiter.js';
import type { Frontier } from '../ports/frontier.js';
import type { SyncRateLimiter } from '../ports/rate-limiter.js';
import type { CrawldConfig } from './config.js';
import { isRedisKind } from './config-schema.js';
import { instanceIdOf } from './instance-id.js';

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

export interface BuiltFrontier {
  readonly frontier: Frontier;
  /** frontier.open(), with an error that says which store could not be reached. */
  open(): Promise<void>;
  /** Other daemons lease from and enqueue into the same frontier. */
  readonly shared: boolean;
  /** False while the store cannot be reached (Redis down); always true for local stores. */
  healthy(): boolean;
  /** Scheduler settings the kind needs. */
  readonly scheduling: {
    /** > 0 when others enqueue work this daemon will not hear about. */
    readonly idlePollMs: number;
    /** Buffered tasks with less lease left than this are handed back, not started. */
    readonly minLeaseLeftMs?: number;
  };
  /**
   * Reclaim leases left by a previous run at startup (recovery.ts). Only for a frontier this
   * daemon owns alone: on a shared one the leases may be a live daemon's.
   */
  readonly recoverAtStart: boolean;
  /** Rate limiter with buckets shared through the store; undefined: in-process buckets. */
  readonly createRateLimiter?: (options: LocalRateLimiterOptions) => SyncRateLimiter;
  /** Stops retries in flight (shutdown must not wait for a store that is down). */
  giveUp(): void;
  /** After frontier.close(): releases what the factory opened besides it. */
  close(): Promise<void>;
}

/** How often an idle daemon on a shared frontier looks for work others enqueued. */
export const SHARED_IDLE_POLL_MS = 500;

/**
 * Async so that ioredis and the Redis adapters load only for a Redis frontier: every CLI
 * command (and a SQLite crawl's start-up) would otherwise pay for them.
 */
export async function createFrontier(config: CrawldConfig, deps: FrontierDeps): Promise<BuiltFrontier> {
  const f = config.frontier;
  if (!isRedisKind(f.kind)) {
    const frontier =
      f.kind === 'memory'
        ? new MemoryFrontier({ clock: deps.clock, maxPending: f.maxPending })
        : new SqliteFrontier({
            path: f.path ?? join(deps.dataDir, 'frontier.db'),
            clock: deps.clock,
            maxPending: f.maxPending,
          });
    return {
      frontier,
      open: () => frontier.open(),
      shared: false,
      healthy: () => true,
      // A single daemon learns of new work from its own enqueues (Scheduler.kick).
      scheduling: { idlePollMs: 0 },
      recoverAtStart: true,
      giveUp: () => {},
      close: async () => {},
    };
  }
  const { createRedisStore } = await import('./redis-store-factory.js');
  return createRedisStore(config, deps);
}

/** An opened frontier; release() closes the frontier and what the factory opened with it. */
export interface OpenedFrontier extends BuiltFrontier {
  release(): Promise<void>;
}

/**
 * The frontier a config names, opened: what the daemon and every CLI subcommand that works
 * on a stored frontier (dlq) call. A failed open releases what the factory created.
 */
export async function openFrontier(
  config: CrawldConfig,
  deps: Partial<FrontierDeps> = {},
): Promise<OpenedFrontier> {
  const built = await createFrontier(config, {
    clock: systemClock,
    dataDir: resolve(config.dataDir),
    instanceId: instanceIdOf(config),
    ...deps,
  });
  try {
    await built.open();
  } catch (err) {
    await built.close();
    throw err;
  }
  return {
    ...built,
    release: async () => {
      await built.frontier.close();
      await built.close();
    },
  };
}
