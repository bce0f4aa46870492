import type { Bound } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';

export interface TokenBucketOptions {
  /** Tokens added per second, continuously. */
  readonly ratePerSec: number;
  /** Capacity: the most tokens that can be taken at once after a quiet period. @default max(1, ratePerSec) */
  readonly burst?: number;
}

/**
 * The bounds of each option (the config's rateLimits and jobs[].limits). A burst need not be
 * whole: the bucket refills continuously, and the default, max(1, ratePerSec), often is not.
 */
export const TOKEN_BUCKET_BOUNDS = Object.freeze({
  ratePerSec: { min: 0, minExclusive: true },
  burst: { min: 1 },
} as const satisfies Record<keyof TokenBucketOptions, Bound>);

export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly waitMs: number };

/**
 * A token bucket refilled continuously from clock.monotonic(): no timer, no interval, so it
 * costs nothing while idle and its answers are exact. It starts full.
 */
export class TokenBucket {
  readonly ratePerSec: number;
  readonly burst: number;
  readonly #clock: Clock;
  #tokens: number;
  #at: number;

  constructor(options: TokenBucketOptions, clock: Clock) {
    const b = TOKEN_BUCKET_BOUNDS;
    this.ratePerSec = checkNumber('ratePerSec', options.ratePerSec, b.ratePerSec);
    this.burst = checkNumber('burst', options.burst ?? Math.max(1, options.ratePerSec), b.burst);
    this.#clock = clock;
    this.#tokens = this.burst;
    this.#at = clock.monotonic();
  }

  /** Tokens available now (fractional). */
  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** 0 when n tokens are available now, else the ms after which they will be. Takes nothing. */
  waitMs(n = 1): number {
    this.#check(n);
    this.#refill();
    const missing = n - this.#tokens;
    // Rounded up to whole ms so that waiting exactly waitMs is always enough; the epsilon keeps
    // float noise (0.30000000000000004 tokens missing) from adding a spurious millisecond.
    return missing <= 1e-9 ? 0 : Math.ceil((missing * 1000) / this.ratePerSec - 1e-9);
  }

  tryTake(n = 1): TakeResult {
    const waitMs = this.waitMs(n);
    if (waitMs > 0) return { ok: false, waitMs };
    this.#tokens = Math.max(0, this.#tokens - n);
    return { ok: true };
  }

  #refill(): void {
    const now = this.#clock.monotonic();
    if (now > this.#at) {
      this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) * this.ratePerSec) / 1000);
    }
    this.#at = now;
  }

  #check(n: number): void {
    checkNumber('n', n, { min: 0, max: this.burst, maxOf: 'burst' });
  }
}
