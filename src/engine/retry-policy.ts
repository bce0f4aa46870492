import { type BackoffOptions, backoffDelayMs } from '../core/backoff.js';
import type { Clock, Random } from '../core/clock.js';
import { parseRetryAfter } from '../core/retry-after.js';
import type { RetryPolicy } from './job-runtime.js';

export interface RetryPolicyOptions {
  readonly maxAttempts: number;
  /** Exponential backoff of the retries (config/control-options.ts retryBackoffOf maps the config). */
  readonly backoff: BackoffOptions;
  readonly retryAfterCapMs: number;
}

/** Exponential backoff with full jitter; a server's Retry-After wins when it asks for longer. */
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
