import type { RedisRateLimiter } from '../../src/adapters/rate/redis-rate-limiter.js';
import { pause } from './wait.js';

/** Calls take() as fast as the answers allow until `until`; returns how many were admitted. */
export async function hammer(limiter: RedisRateLimiter, key: string, until: number): Promise<number> {
  let admitted = 0;
  while (Date.now() < until) {
    const r = limiter.take(key);
    if (r.ok) admitted++;
    else await pause(Math.min(r.waitMs, 20), 'paced by the limiter: it says how long until a token');
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
