/**
 * Request-rate limits by key (a host name, or a key the implementation derives from it).
 * LocalRateLimiter implements it in-process; a Redis implementation shares the same buckets
 * between several daemons crawling the same hosts.
 *
 * tryAcquire is an atomic check-and-take: it either takes n tokens from every bucket that
 * applies to the key and answers { ok: true, waitMs: 0 }, or takes nothing and answers
 * { ok: false, waitMs } with the time after which trying again can succeed (a hint: another
 * caller may take the tokens first). It never waits itself, so the scheduler stays in control.
 */
export interface RateLimiter {
  tryAcquire(key: string, n?: number): Promise<{ ok: boolean; waitMs: number }>;
}

/**
 * A RateLimiter the dispatch loop can ask synchronously (the control plane's admit() must
 * not await): LocalRateLimiter answers from its buckets, RedisRateLimiter from tokens it
 * already took from the shared buckets (refilling in the background).
 */
export interface SyncRateLimiter extends RateLimiter {
  take(key: string, n?: number): { ok: boolean; waitMs: number };
}
