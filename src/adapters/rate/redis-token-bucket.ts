/**
 * The shared token bucket: one Lua script (lua/token-bucket.lua) per bucket key, so check-and-take is atomic
 * however many daemons ask. Same arithmetic as core/token-bucket.ts (continuous refill,
 * starts full, capped at burst), but it hands out up to `want` tokens at once so a daemon
 * can serve several requests from a local cache (redis-rate-limiter.ts).
 *
 * Time is the caller's clock.now() (wall clock), not Redis TIME, so tests can drive it and
 * the script is deterministic; daemons' clocks must be roughly in sync (NTP): a clock that
 * is ahead refills early (at most burst extra), one behind refills nothing until it catches up.
 */
import { luaScript } from '../redis/lua-files.js';
import { defineScripts, type RedisLike } from '../redis/redis-client.js';

export interface BucketSpec {
  readonly ratePerSec: number;
  readonly burst: number;
}

type TakeFn = (key: string, ...args: (string | number)[]) => Promise<[number, number]>;

export function defineTokenBucket(client: RedisLike): void {
  defineScripts(client, {
    crawldTakeTokens: { numberOfKeys: 1, lua: luaScript('adapters/rate/lua/token-bucket') },
  });
}

/** Takes between min and want tokens from the shared bucket, or none and says how long to wait. */
export async function takeTokens(
  client: RedisLike,
  key: string,
  now: number,
  spec: BucketSpec,
  want: number,
  min: number,
): Promise<{ granted: number; waitMs: number }> {
  const fn = (client as unknown as { crawldTakeTokens: TakeFn }).crawldTakeTokens;
  const [granted, waitMs] = await fn.call(client, key, now, spec.ratePerSec, spec.burst, want, min);
  return { granted: Number(granted), waitMs: Number(waitMs) };
}
