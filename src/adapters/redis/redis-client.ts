/** The ioredis client the Redis adapters share: options that fail fast in an outage, scripts, error mapping. */
import { type ChainableCommander, Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { CrawldError, RedisUnavailableError } from '../../core/errors.js';

export { RedisUnavailableError };

/** "Not now": a retry succeeds (MOVED / ASK only after ioredis's redirections ran out: nothing changed). */
const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|NOREPLICAS|MOVED|ASK)\b/;

/** Connection trouble becomes RedisUnavailableError; script bugs (other ReplyErrors) stay as they are. */
export function mapRedisError(err: unknown): unknown {
  if (err instanceof CrawldError) return err;
  if (!(err instanceof Error)) return err;
  if (err.name === 'ReplyError' && !UNAVAILABLE_REPLIES.test(err.message)) return err;
  return new RedisUnavailableError(`redis unavailable: ${err.message}`, { cause: err });
}

export async function redisCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw mapRedisError(err);
  }
}

/** A command during an outage rejects within about a second instead of hanging; ioredis reconnects. */
export const clientOptions: RedisOptions = {
  lazyConnect: true,
  maxRetriesPerRequest: 1,
  connectTimeout: 2_000,
  retryStrategy: (times) => Math.min(100 * times, 1_000),
};

/** No offline queue: an unreachable cluster fails a command at once; resharding and failover cost retries. */
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

export type RedisLike = Redis | Cluster;

/** A Cluster for start-up nodes ("host:port"), else a Redis for the URL; the options above. */
export function createRedisClient(target: {
  readonly url?: string | undefined;
  readonly nodes?: readonly string[] | undefined;
}): RedisLike {
  const { url, nodes } = target;
  return nodes ? new Cluster(nodes.map(parseNode), clusterOptions) : new Redis(url!, clientOptions);
}

export function parseNode(node: string): { host: string; port: number } {
  const at = node.lastIndexOf(':');
  return { host: node.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(node.slice(at + 1)) };
}

/** A pipeline; on a Cluster (a pipeline stays on one node) each command goes at once on its own. */
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
        // Settled by exec(); else a rejection before it would count as unhandled.
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

/** numberOfKeys absent when the call passes it first. */
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

export function script(target: Target, name: string, keys: readonly string[], args: readonly ScriptArg[]) {
  const fn = (target as unknown as Record<string, ScriptFn | undefined>)[name];
  if (!fn) throw new Error(`script ${name} is not defined on this client`);
  return fn.call(target, ...keys, ...args);
}

export async function execAll(pipe: ChainableCommander): Promise<unknown[]> {
  const results = (await pipe.exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}
