/**
 * The shared token bucket: one Lua script per bucket key, so check-and-take is atomic
 * however many daemons ask. Same arithmetic as core/token-bucket.ts (continuous refill,
 * starts full, capped at burst), but it hands out up to `want` tokens at once so a daemon
 * can serve several requests from a local cache (redis-rate-limiter.ts).
 *
 * Time is the caller's clock.now() (wall clock), not Redis TIME, so tests can drive it and
 * the script is deterministic; daemons' clocks must be roughly in sync (NTP): a clock that
 * is ahead refills early (at most burst extra), one behind refills nothing until it catches up.
 */
import type { RedisLike } from '../frontier/redis/client.js';

/** KEYS[1] bucket hash {t tokens, at ms}. ARGV: now, ratePerSec, burst, want, min.
 *  Returns {granted, waitMs}: granted in [min, want] or 0 with the ms until min tokens exist. */
const TAKE = `
local now, rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local want, min = tonumber(ARGV[4]), tonumber(ARGV[5])
local b = redis.call('HMGET', KEYS[1], 't', 'at')
local tokens, at = tonumber(b[1]), tonumber(b[2])
if not tokens then tokens = burst at = now end
if now > at then tokens = math.min(burst, tokens + (now - at) * rate / 1000) at = now end
local granted = math.min(want, math.floor(tokens + 1e-9))
local wait = 0
if granted < min then
  granted = 0
  wait = math.ceil((min - tokens) * 1000 / rate - 1e-9)
else
  tokens = tokens - granted
end
-- A bucket left alone for burst/rate seconds is full, which is what a missing key means:
-- expiring it then keeps memory bounded by the hosts active recently.
redis.call('HSET', KEYS[1], 't', tostring(tokens), 'at', at)
redis.call('PEXPIRE', KEYS[1], math.ceil(burst * 1000 / rate) + 1000)
return {granted, wait}
`;

export interface BucketSpec {
  readonly ratePerSec: number;
  readonly burst: number;
}

type TakeFn = (key: string, ...args: (string | number)[]) => Promise<[number, number]>;

export function defineTokenBucket(client: RedisLike): void {
  if (typeof (client as unknown as Record<string, unknown>).crawldTakeTokens !== 'function')
    client.defineCommand('crawldTakeTokens', { numberOfKeys: 1, lua: TAKE });
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
