import { RedisFrontier } from '../adapters/frontier/redis/redis-frontier.js';
import { RedisWorkSharing } from '../adapters/peers/redis-work-sharing.js';
import { RedisRateLimiter } from '../adapters/rate/redis-rate-limiter.js';
import { createRedisClient, type RedisLike } from '../adapters/redis/redis-client.js';
import { RedisMapStore } from '../adapters/shared-map/redis-map-store.js';
import type { CrawldConfig } from '../config/config.js';
import { ConfigError, RedisUnavailableError } from '../core/errors.js';
import { RetryingFrontier } from '../engine/recovery/retrying-frontier.js';
import { redactUrl } from '../observe/logger.js';
import { type BuiltFrontier, type FrontierDeps, SHARED_IDLE_POLL_MS } from './frontier-types.js';

/** Loaded by createFrontier only for a Redis frontier. */
export function createRedisStore(config: CrawldConfig, deps: FrontierDeps): BuiltFrontier {
  const f = config.frontier;
  const nodes = f.kind === 'redis-cluster' ? (f.nodes ?? []) : undefined;
  // One client for the frontier and the rate buckets: one health state, one reconnect.
  const client: RedisLike = createRedisClient({ url: f.url, nodes });
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
    if (up && !closing) deps.onConnection?.(false, lastError);
    up = false;
  });
  const keyPrefix = f.keyPrefix ?? 'crawld';
  const redis = new RedisFrontier({ client, clock: deps.clock, maxPending: f.maxPending, keyPrefix });
  // Ack, retry and enqueue wait out a short outage rather than lose a finished task's ack
  // (which would make another daemon fetch the page again after the lease expires).
  const frontier = new RetryingFrontier(redis, {
    clock: deps.clock,
    maxWaitMs: Math.min(f.leaseMs, 60_000),
  });
  return {
    frontier,
    open: async () => {
      try {
        await frontier.open();
      } catch (err) {
        if (!(err instanceof RedisUnavailableError)) throw err;
        // A cluster none of whose nodes answers is a wrong address list far more often than
        // an outage of every shard at once: exit 2 naming the field, like a config error.
        if (nodes)
          throw new ConfigError([
            `frontier.nodes: cannot reach any node of the Redis Cluster (${nodes.join(', ')}): ${err.message}`,
          ]);
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
      // A daemon that finds nothing to lease gets part of what the others hold.
      workSharing: new RedisWorkSharing(client, keyPrefix, deps.instanceId),
    },
    createRateLimiter: (options) =>
      new RedisRateLimiter(
        { ...options, client, keyPrefix, ...(deps.onRateError ? { onError: deps.onRateError } : {}) },
        deps.clock,
      ),
    createMapStore: (kind) => new RedisMapStore(client, keyPrefix, kind),
    giveUp: () => frontier.giveUp(),
    close: async () => {
      closing = true;
      await client.quit().catch(() => client.disconnect());
    },
  };
}
