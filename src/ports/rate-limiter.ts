/** Request-rate limits by key. tryAcquire is atomic: takes from every bucket or nothing, never waits. */
export interface RateLimiter {
  tryAcquire(key: string, n?: number): Promise<{ ok: boolean; waitMs: number }>;
}

/** Answers synchronously, as admit() must. */
export interface SyncRateLimiter extends RateLimiter {
  take(key: string, n?: number): { ok: boolean; waitMs: number };
}
