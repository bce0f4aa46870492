/**
 * The ioredis side of the Redis adapters: connection options tuned to fail fast during an
 * outage, script registration (EVALSHA via defineCommand; ioredis falls back to EVAL on
 * NOSCRIPT, e.g. after a Redis restart emptied the script cache) and error mapping.
 */
import { type ChainableCommander, Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { CrawldError, RedisUnavailableError } from '../../core/errors.js';

/** Re-exported for the callers that import it from here; defined in core/errors.ts. */
export { RedisUnavailableError };

/** Replies that say "not now": a retry later succeeds. MOVED / ASK reach us only when ioredis's
 *  own redirection budget ran out mid-resharding; the call changed nothing, so it is retried. */
const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|NOREPLICAS|MOVED|ASK)\b/;

/** Connection trouble becomes RedisUnavailableError; script bugs (other ReplyErrors) stay as they are. */
export function mapRedisError(err: unknown): unknown {
  if (err instanceof CrawldError) return err;
  if (!(err instanceof Error)) return err;
  if (err.name === 'ReplyError' && !UNAVAILABLE_REPLIES.test(err.message)) return err;
  return new RedisUnavailableError(`redis unavailable: ${err.message}`, { cause: err });
}

/** Runs a call to Redis, its failure mapped by mapRedisError. */
export async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw mapRedisError(err);
  }
}

/**
 * Options for a client the adapter creates from a URL. maxRetriesPerRequest 1 and a short
 * reconnect backoff make a command issued during an outage reject within about a second
 * (MaxRetriesPerRequestError, mapped to RedisUnavailableError) instead of hanging, while
 * ioredis keeps reconnecting in the background and later commands just work.
 */
export const clientOptions: RedisOptions = {
  lazyConnect: true,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  retryStrategy: (times) => Math.min(100 * times, 1_000),
};

/**
 * The same for a Redis Cluster client. No offline queue: while the cluster is unreachable a
 * command fails at once (RedisUnavailableError) instead of waiting for the reconnection, as
 * maxRetriesPerRequest does for a single node. MOVED / ASK are followed (maxRedirections),
 * CLUSTERDOWN and TRYAGAIN retried after 100 ms, a failover waited for: a resharding or a
 * failing node costs retries, and only a call that exhausts them fails (and is retried by
 * the daemon's RetryingFrontier).
 */
export const clusterOptions: ClusterOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRedirections: 16,
  retryDelayOnFailover: 100,
  retryDelayOnClusterDown: 100,
  retryDelayOnTryAgain: 100,
  slotsRefreshTimeout: 2_000,
  clusterRetryStrategy: (times) => Math.min(100 * times, 1_000),
  redisOptions: { connectTimeout: 2_000, maxRetriesPerRequest: 1 },
};

/** A single Redis or a Redis Cluster: every adapter command works on both. */
export type RedisLike = Redis | Cluster;

/** A client with the options above: a Cluster for start-up nodes ("host:port"), else a Redis for the URL. */
export function createRedisClient(target: {
  readonly url?: string | undefined;
  readonly nodes?: readonly string[] | undefined;
}): RedisLike {
  const { url, nodes } = target;
  return nodes ? new Cluster(nodes.map(parseNode), clusterOptions) : new Redis(url!, clientOptions);
}

/** "host:port" → ioredis Cluster start-up node. */
export function parseNode(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(node.slice(at + 1)) };
}

/**
 * A pipeline for either client. On one Redis it is a real pipeline (one write, one round
 * trip). On a Cluster a pipeline must stay within one node, and the frontier's batches span
 * hosts on every node, so there the "pipeline" sends each command on its own at once: they
 * are in flight together (one round trip of latency, one per node), and each gets ioredis's
 * full MOVED / ASK / TRYAGAIN handling. exec() answers [err, value] pairs like a pipeline.
 */
export function batch(client: RedisLike): ChainableCommander {
  if (!(client instanceof Cluster)) return client.pipeline();
  const sent: Promise<unknown>[] = [];
  const proxy: ChainableCommander = new Proxy({} as ChainableCommander, {
    get(_, prop) {
      if (prop === 'exec')
        return async () =>
          (await Promise.allSettled(sent)).map((r) =>
            r.status === 'fulfilled' ? [null, r.value] : [r.reason as Error, undefined],
          );
      if (prop === 'then') return undefined;
      const fn = (client as unknown as Record<PropertyKey, unknown>)[prop];
      if (typeof fn !== 'function') return fn;
      return (...args: unknown[]) => {
        const p = (fn as (...a: unknown[]) => Promise<unknown>).apply(client, args);
        // Settled by exec(); without this a rejection before exec() would count as unhandled.
        p.catch(() => {});
        sent.push(p);
        return proxy;
      };
    },
  });
  return proxy;
}

export type ScriptArg = string | number | Buffer;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;
type Target = RedisLike | ChainableCommander;

/** A script as ioredis's defineCommand takes it: numberOfKeys absent when the call passes it first. */
export interface ScriptDef {
  readonly numberOfKeys?: number;
  readonly lua: string;
}

/** Defines each script once per client (defineCommand is per client; EVALSHA, EVAL after NOSCRIPT). */
export function defineScripts(client: RedisLike, defs: Readonly<Record<string, ScriptDef>>): void {
  const has = client as unknown as Record<string, unknown>;
  for (const [name, def] of Object.entries(defs))
    if (typeof has[name] !== 'function') client.defineCommand(name, def);
}

/** Calls a script defined with defineCommand on a client or a pipeline. */
export function script(target: Target, name: string, keys: readonly string[], args: readonly ScriptArg[]) {
  const fn = (target as unknown as Record<string, ScriptFn | undefined>)[name];
  if (!fn) throw new Error(`script ${name} is not defined on this client`);
  return fn.call(target, ...keys, ...args);
}

/** Runs a pipeline and returns its replies, throwing the first error. */
export async function execAll(pipe: ChainableCommander): Promise<unknown[]> {
  const results = (await pipe.exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
