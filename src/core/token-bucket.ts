import type { Bound } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';

export interface TokenBucketOptions {
  readonly ratePerSec: number;
  /** @default max(1, ratePerSec) */
  readonly burst?: number;
}

/** A burst need not be whole: the default, max(1, ratePerSec), often is not. */
export const TOKEN_BUCKET_BOUNDS = Object.freeze({
  ratePerSec: { min: 0, minExclusive: true },
  burst: { min: 1 },
} as const satisfies Record<keyof TokenBucketOptions, Bound>);

export type TakeResult = { readonly ok: true } | { readonly ok: false; readonly waitMs: number };

/** Refilled from clock.monotonic(): no timer, nothing while idle, exact. Starts full. */
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

  get tokens(): number {
    this.#refill();
    return this.#tokens;
  }

  /** Takes nothing. */
  waitMs(n = 1): number {
    this.#check(n);
    this.#refill();
    const missing = n - this.#tokens;
    // Rounded up so waiting waitMs is enough; the epsilon keeps float noise from adding a ms.
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
