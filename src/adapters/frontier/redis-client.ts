/**
 * The ioredis side of the Redis adapters: connection options tuned to fail fast during an
 * outage, script registration (EVALSHA via defineCommand; ioredis falls back to EVAL on
 * NOSCRIPT, e.g. after a Redis restart emptied the script cache) and error mapping.
 */
import type { ChainableCommander, Redis, RedisOptions } from 'ioredis';
import { CrawldError } from '../../core/errors.js';
import { HOST_SCRIPTS, hostScriptSource, PUBLISH } from './redis-lua.js';

/**
 * Redis could not be reached or cannot serve now (connection refused or lost, retries
 * exhausted, LOADING after a restart, READONLY replica, cluster down). Retryable: the
 * daemon treats it as "frontier unavailable" and tries again later; no state was changed
 * by the failed call unless the script had already run (then it is safe to repeat:
 * enqueue dedupes, and ack/retry/deadLetter answer false on a consumed token).
 */
export class RedisUnavailableError extends CrawldError {
  override readonly code: string = 'CRAWLD_ERR_REDIS_UNAVAILABLE';
  override readonly retryable: boolean = true;
}

const UNAVAILABLE_REPLIES = /^(LOADING|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|BUSY|NOREPLICAS)\b/;

/** Connection trouble becomes RedisUnavailableError; script bugs (other ReplyErrors) stay as they are. */
export function mapRedisError(err: unknown): unknown {
  if (err instanceof CrawldError) return err;
  if (!(err instanceof Error)) return err;
  if (err.name === 'ReplyError' && !UNAVAILABLE_REPLIES.test(err.message)) return err;
  return new RedisUnavailableError(`redis unavailable: ${err.message}`, { cause: err });
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

export type ScriptArg = string | number;
type ScriptFn = (...args: ScriptArg[]) => Promise<unknown>;
type Target = Redis | ChainableCommander;

/** Registers every frontier script once per client (defineCommand is per client). */
export function defineFrontierScripts(client: Redis): void {
  const has = client as unknown as Record<string, unknown>;
  for (const name of Object.keys(HOST_SCRIPTS) as (keyof typeof HOST_SCRIPTS)[]) {
    if (typeof has[name] !== 'function')
      client.defineCommand(name, { numberOfKeys: 6, lua: hostScriptSource(name) });
  }
  if (typeof has.crawldPublish !== 'function')
    client.defineCommand('crawldPublish', { numberOfKeys: 6, lua: PUBLISH });
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
