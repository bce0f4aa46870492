/**
 * Builds the frontier from config (part of the composition root), with what the rest of
 * the daemon needs to know about its kind: whether other daemons share it, how to probe
 * its health, and (for Redis) the shared rate limiter on the same connection.
 */
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { MemoryFrontier } from '../adapters/frontier/memory.js';
import { RedisFrontier } from '../adapters/frontier/redis.js';
import { clientOptions, RedisUnavailableError } from '../adapters/frontier/redis-client.js';
import { SqliteFrontier } from '../adapters/frontier/sqlite.js';
import { RedisRateLimiter } from '../adapters/rate/redis-rate-limiter.js';
import type { Clock } from '../core/clock.js';
import type { LocalRateLimiterOptions } from '../core/local-rate-limiter.js';
import { redactUrl } from '../observe/logger.js';
import type { Frontier } from '../ports/frontier.js';
import type { SyncRateLimiter } from '../ports/rate-limiter.js';
import type { CrawldConfig } from './config.js';
import { RetryingFrontier } from './retrying-frontier.js';

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

export function createFrontier(config: CrawldConfig, deps: FrontierDeps): BuiltFrontier {
  const f = config.frontier;
  if (f.kind !== 'redis') {
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
  // One connection for the frontier and the rate buckets: one health state, one reconnect.
  const client = new Redis(f.url!, clientOptions);
  // Reported once per outage: at the first close after 'ready', and at the next 'ready'.
  let up = false;
  let closing = false;
  let lastError: unknown;
  client.on('ready', () => {
    if (!up) deps.onConnection?.(true);
    up = true;
  });
  // Without an 'error' listener ioredis would print every failed reconnect attempt.
  client.on('error', (err: unknown) => {
    lastError = err;
  });
  client.on('close', () => {
    // After close() the logger may be gone: a planned disconnect is not an outage.
    if (up && !closing) deps.onConnection?.(false, lastError);
    up = false;
  });
  const keyPrefix = f.keyPrefix ?? 'crawld';
  const redis = new RedisFrontier({ client, clock: deps.clock, maxPending: f.maxPending, keyPrefix });
  // Ack, retry and enqueue wait out a short outage rather than lose a finished task's ack
  // (which would make another daemon fetch the page again after the lease expires).
  const frontier = new RetryingFrontier(redis, { maxWaitMs: Math.min(f.leaseMs, 60_000) });
  return {
    frontier,
    open: async () => {
      try {
        await frontier.open();
      } catch (err) {
        if (!(err instanceof RedisUnavailableError)) throw err;
        // redactUrl drops a password from the URL.
        const where = redactUrl(f.url!);
        throw new RedisUnavailableError(`cannot reach the Redis frontier at ${where}: ${err.message}`, {
          cause: err,
        });
      }
    },
    shared: true,
    healthy: () => up && client.status === 'ready',
    scheduling: {
      idlePollMs: SHARED_IDLE_POLL_MS,
      // A task started with less lease left could still be running when it expires, and
      // another daemon would lease and fetch it too.
      minLeaseLeftMs: Math.min(f.leaseMs / 2, config.fetch.totalTimeoutMs),
    },
    recoverAtStart: false,
    createRateLimiter: (options) =>
      new RedisRateLimiter(
        { ...options, client, keyPrefix, ...(deps.onRateError ? { onError: deps.onRateError } : {}) },
        deps.clock,
      ),
    giveUp: () => frontier.giveUp(),
    close: async () => {
      closing = true;
      await client.quit().catch(() => client.disconnect());
    },
  };
}
