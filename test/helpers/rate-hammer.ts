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

/**
 * Two daemons on two hosts under one global bucket: limiters[0] hammers a.example and
 * limiters[1] b.example for 2 s; returns what they were admitted together, per second.
 */
export async function globalRate(limiters: readonly RedisRateLimiter[]): Promise<number> {
  const start = Date.now();
  const until = start + 2_000;
  const counts = await Promise.all([
    hammer(limiters[0]!, 'a.example', until),
    hammer(limiters[1]!, 'b.example', until),
  ]);
  return counts.reduce((a, b) => a + b, 0) / ((Date.now() - start) / 1000);
}
