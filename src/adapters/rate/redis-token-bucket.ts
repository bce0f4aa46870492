/** core/token-bucket.ts atomic in Redis (lua/token-bucket.lua), up to `want` tokens at once. Time is
 *  the caller's clock (tests drive it), not Redis TIME: daemons' clocks must agree (NTP). */
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
