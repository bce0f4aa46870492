import type { RedisRateLimiter } from '../../src/adapters/rate/redis-rate-limiter.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls take() as fast as the answers allow until `until`; returns how many were admitted. */
export async function hammer(limiter: RedisRateLimiter, key: string, until: number): Promise<number> {
  let admitted = 0;
  while (Date.now() < until) {
    const r = limiter.take(key);
    if (r.ok) admitted++;
    else await sleep(Math.min(r.waitMs, 20));
  }
  return admitted;
}
