import { type BackoffOptions, backoffDelayMs } from '../../core/backoff.js';
import type { Clock, Random } from '../../core/clock.js';
import { parseRetryAfter } from '../../core/retry-after.js';

export interface RetryPolicy {
  readonly maxAttempts: number;
  /** `attempt`: 1 = first retry. Retry-After (parsed, capped) wins when longer. */
  delayMs(attempt: number, retryAfterMs?: number): number;
  retryAfterMs(header: string | undefined): number | undefined;
}

export interface RetryPolicyOptions {
  readonly maxAttempts: number;
  readonly backoff: BackoffOptions;
  readonly retryAfterCapMs: number;
}

/** Full jitter. */
export function createRetryPolicy(o: RetryPolicyOptions, clock: Clock, random: Random): RetryPolicy {
  const backoff = o.backoff;
  return {
    maxAttempts: o.maxAttempts,
    delayMs(attempt, retryAfterMs) {
      const b = backoffDelayMs(attempt, backoff, random);
      return retryAfterMs !== undefined ? Math.max(b, retryAfterMs) : b;
    },
    retryAfterMs(header) {
      return parseRetryAfter(header, clock, { maxMs: o.retryAfterCapMs });
    },
  };
}

/** The task runner keeps this object; a reload swaps `live.retryPolicy` behind it. */
export function swappableRetryPolicy(live: { readonly retryPolicy: RetryPolicy }): RetryPolicy {
  return {
    get maxAttempts() {
      return live.retryPolicy.maxAttempts;
    },
    delayMs: (attempt, retryAfterMs) => live.retryPolicy.delayMs(attempt, retryAfterMs),
    retryAfterMs: (header) => live.retryPolicy.retryAfterMs(header),
  };
}
