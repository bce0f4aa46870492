import type { BreakerState, HostBreaker } from '../ports/breaker.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';

export interface BreakerPolicyOptions {
  /** Opens when failures are at least this percentage of the calls in the window. @default 50 */
  readonly errorThresholdPercentage?: number;
  /** Length of the rolling window. @default 10000 */
  readonly rollingCountTimeoutMs?: number;
  /** The window is made of this many buckets; the oldest rolls out as time passes. @default 10 */
  readonly rollingCountBuckets?: number;
  /** No opening before the window holds this many calls. @default 10 */
  readonly volumeThreshold?: number;
  /** Time open before probing (half-open). @default 30000 */
  readonly resetTimeoutMs?: number;
  /** Probes allowed at once in half-open; that many successes close the breaker. @default 1 */
  readonly halfOpenMaxProbes?: number;
}

export const breakerPolicyDefaults = {
  errorThresholdPercentage: 50,
  rollingCountTimeoutMs: 10_000,
  rollingCountBuckets: 10,
  volumeThreshold: 10,
  resetTimeoutMs: 30_000,
  halfOpenMaxProbes: 1,
} as const satisfies Required<BreakerPolicyOptions>;

export function checkBreakerOptions(options: BreakerPolicyOptions = {}): Required<BreakerPolicyOptions> {
  const o = { ...breakerPolicyDefaults, ...options };
  checkNumber('errorThresholdPercentage', o.errorThresholdPercentage, { min: 0, max: 100 });
  checkNumber('rollingCountTimeoutMs', o.rollingCountTimeoutMs, { min: 1 });
  checkNumber('rollingCountBuckets', o.rollingCountBuckets, {
    min: 1,
    max: o.rollingCountTimeoutMs,
    integer: true,
  });
  checkNumber('volumeThreshold', o.volumeThreshold, { min: 0, integer: true });
  checkNumber('resetTimeoutMs', o.resetTimeoutMs, { min: 0 });
  checkNumber('halfOpenMaxProbes', o.halfOpenMaxProbes, { min: 1, integer: true });
  return o;
}

/**
 * The circuit-breaker decision as a pure state machine (opossum's semantics, without its
 * timers): time is read from the clock when asked, so "open → half-open after resetTimeoutMs"
 * happens on the first look after the deadline, and tests drive it with FakeClock.
 *
 * Closed: every call passes; successes and failures go to a ring of time buckets. When the
 * window holds at least volumeThreshold calls and failures are >= errorThresholdPercentage of
 * them, it opens. Open: nothing passes. Half-open: up to halfOpenMaxProbes calls pass at once;
 * any probe failure reopens (a new reset timeout), halfOpenMaxProbes probe successes close it
 * with an empty window, so failures from before the outage cannot reopen it at once.
 * Outcomes reported while open (requests started before it opened) are ignored.
 */
export class BreakerPolicy implements HostBreaker {
  readonly #o: Required<BreakerPolicyOptions>;
  readonly #clock: Clock;
  readonly #bucketMs: number;
  /** Ring of buckets; a slot is valid only while its epoch (bucket number) is in the window. */
  readonly #epoch: number[];
  readonly #ok: number[];
  readonly #failed: number[];
  readonly #listeners = new Set<(t: { from: BreakerState; to: BreakerState }) => void>();
  #state: BreakerState = 'closed';
  #openedAt = 0;
  #probes = 0;
  #probeSuccesses = 0;

  constructor(options: BreakerPolicyOptions = {}, clock: Clock) {
    this.#o = checkBreakerOptions(options);
    this.#clock = clock;
    this.#bucketMs = this.#o.rollingCountTimeoutMs / this.#o.rollingCountBuckets;
    const n = this.#o.rollingCountBuckets;
    this.#epoch = new Array<number>(n).fill(Number.NEGATIVE_INFINITY);
    this.#ok = new Array<number>(n).fill(0);
    this.#failed = new Array<number>(n).fill(0);
  }

  get state(): BreakerState {
    if (this.#state === 'open' && this.#clock.monotonic() - this.#openedAt >= this.#o.resetTimeoutMs) {
      this.#probes = 0;
      this.#probeSuccesses = 0;
      this.#transition('halfOpen');
    }
    return this.#state;
  }

  /** Calls and failures in the rolling window now. */
  get window(): { calls: number; failures: number } {
    const current = this.#currentEpoch();
    let calls = 0;
    let failures = 0;
    for (let i = 0; i < this.#epoch.length; i++) {
      if (this.#epoch[i]! > current - this.#epoch.length) {
        calls += this.#ok[i]! + this.#failed[i]!;
        failures += this.#failed[i]!;
      }
    }
    return { calls, failures };
  }

  onTransition(listener: (t: { from: BreakerState; to: BreakerState }) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  canPass(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#probes >= this.#o.halfOpenMaxProbes) return false;
    this.#probes++;
    return true;
  }

  onSuccess(): void {
    const state = this.state;
    if (state === 'closed') this.#record(false);
    else if (state === 'halfOpen') {
      this.#probes = Math.max(0, this.#probes - 1);
      if (++this.#probeSuccesses >= this.#o.halfOpenMaxProbes) this.#close();
    }
  }

  onFailure(): void {
    const state = this.state;
    if (state === 'halfOpen') {
      this.#open();
      return;
    }
    if (state !== 'closed') return;
    this.#record(true);
    const { calls, failures } = this.window;
    if (
      calls >= this.#o.volumeThreshold &&
      calls > 0 &&
      (failures * 100) / calls >= this.#o.errorThresholdPercentage
    ) {
      this.#open();
    }
  }

  onIgnore(): void {
    if (this.state === 'halfOpen') this.#probes = Math.max(0, this.#probes - 1);
  }

  #currentEpoch(): number {
    return Math.floor(this.#clock.monotonic() / this.#bucketMs);
  }

  #record(failed: boolean): void {
    const epoch = this.#currentEpoch();
    const i = epoch % this.#epoch.length;
    if (this.#epoch[i] !== epoch) {
      this.#epoch[i] = epoch;
      this.#ok[i] = 0;
      this.#failed[i] = 0;
    }
    if (failed) this.#failed[i]!++;
    else this.#ok[i]!++;
  }

  #open(): void {
    this.#openedAt = this.#clock.monotonic();
    this.#transition('open');
  }

  #close(): void {
    this.#epoch.fill(Number.NEGATIVE_INFINITY);
    this.#transition('closed');
  }

  #transition(to: BreakerState): void {
    const from = this.#state;
    if (from === to) return;
    this.#state = to;
    for (const listener of this.#listeners) listener({ from, to });
  }
}
