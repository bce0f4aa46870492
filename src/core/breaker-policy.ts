import type { BreakerState, FailureInfo, HostBreaker } from '../ports/breaker.js';
import { type Bound, NON_NEGATIVE_INT, POSITIVE_INT, POSITIVE_MS } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';
import { Listeners } from './listeners.js';

export interface BreakerPolicyOptions {
  /** @default 50 */
  readonly errorThresholdPercentage?: number;
  /** @default 10000 */
  readonly rollingCountTimeoutMs?: number;
  /** @default 10 */
  readonly rollingCountBuckets?: number;
  /** No opening before the window holds this many calls. @default 10 */
  readonly volumeThreshold?: number;
  /** Opens after this many failures in a row (Envoy's consecutive_5xx): an outage is seen in a few requests. 0: rate rule only. @default 5 */
  readonly consecutiveFailures?: number;
  /** @default 1000 */
  readonly resetTimeoutMs?: number;
  /** Cap of the open time, which doubles with each consecutive trip (Envoy's base_ejection_time). @default 60000 */
  readonly maxResetTimeoutMs?: number;
  /** Probes at once in half-open; that many successes close it. @default 1 */
  readonly halfOpenMaxProbes?: number;
}

export const breakerPolicyDefaults = {
  errorThresholdPercentage: 50,
  rollingCountTimeoutMs: 10_000,
  rollingCountBuckets: 10,
  volumeThreshold: 10,
  consecutiveFailures: 5,
  resetTimeoutMs: 1_000,
  maxResetTimeoutMs: 60_000,
  halfOpenMaxProbes: 1,
} as const satisfies Required<BreakerPolicyOptions>;

export const BREAKER_BOUNDS = Object.freeze({
  errorThresholdPercentage: { min: 0, minExclusive: true, max: 100 },
  rollingCountTimeoutMs: POSITIVE_MS,
  rollingCountBuckets: POSITIVE_INT,
  volumeThreshold: POSITIVE_INT,
  consecutiveFailures: NON_NEGATIVE_INT,
  resetTimeoutMs: POSITIVE_MS,
  maxResetTimeoutMs: POSITIVE_MS,
  halfOpenMaxProbes: POSITIVE_INT,
} as const satisfies Record<keyof BreakerPolicyOptions, Bound>);

export function checkBreakerOptions(options: BreakerPolicyOptions = {}): Required<BreakerPolicyOptions> {
  const o = { ...breakerPolicyDefaults, ...options };
  const b = BREAKER_BOUNDS;
  checkNumber('errorThresholdPercentage', o.errorThresholdPercentage, b.errorThresholdPercentage);
  checkNumber('rollingCountTimeoutMs', o.rollingCountTimeoutMs, b.rollingCountTimeoutMs);
  checkNumber('rollingCountBuckets', o.rollingCountBuckets, {
    ...b.rollingCountBuckets,
    max: o.rollingCountTimeoutMs,
    maxOf: 'rollingCountTimeoutMs',
  });
  checkNumber('volumeThreshold', o.volumeThreshold, b.volumeThreshold);
  checkNumber('consecutiveFailures', o.consecutiveFailures, b.consecutiveFailures);
  checkNumber('resetTimeoutMs', o.resetTimeoutMs, b.resetTimeoutMs);
  checkNumber('maxResetTimeoutMs', o.maxResetTimeoutMs, {
    ...b.maxResetTimeoutMs,
    min: o.resetTimeoutMs,
    minOf: 'resetTimeoutMs',
  });
  checkNumber('halfOpenMaxProbes', o.halfOpenMaxProbes, b.halfOpenMaxProbes);
  return o;
}

/** The consecutive-failure trip and the growing open time, shared by both breaker implementations. */
export class TripRules {
  readonly #o: Required<BreakerPolicyOptions>;
  #run = 0;
  #trips = 0;

  constructor(options: Required<BreakerPolicyOptions>) {
    this.#o = options;
  }

  get trips(): number {
    return this.#trips;
  }

  failure(): boolean {
    this.#run++;
    return this.#o.consecutiveFailures > 0 && this.#run >= this.#o.consecutiveFailures;
  }

  success(): void {
    this.#run = 0;
  }

  get nextOpenMs(): number {
    return Math.min(this.#o.maxResetTimeoutMs, this.#o.resetTimeoutMs * 2 ** Math.min(this.#trips, 40));
  }

  opened(): number {
    const ms = this.nextOpenMs;
    this.#run = 0;
    this.#trips++;
    return ms;
  }

  closed(): void {
    this.#run = 0;
    this.#trips = 0;
  }
}

/**
 * opossum's circuit breaker as a pure state machine: time is read when asked, so tests drive it with FakeClock.
 * Opens on a run of failures or a failure rate; the open time doubles per consecutive trip. A probe success closes
 * it with an empty window, so failures from before the outage cannot reopen it. Outcomes reported while open are ignored.
 */
export class BreakerPolicy implements HostBreaker {
  readonly #o: Required<BreakerPolicyOptions>;
  readonly #clock: Clock;
  readonly #bucketMs: number;
  /** A slot is valid only while its epoch (bucket number) is in the window. */
  readonly #epoch: number[];
  readonly #ok: number[];
  readonly #failed: number[];
  readonly #listeners = new Listeners<[{ from: BreakerState; to: BreakerState }]>('breakerTransition');
  readonly #trip: TripRules;
  #state: BreakerState = 'closed';
  #openedAt = 0;
  #openMs = 0;
  #probes = 0;
  #probeSuccesses = 0;

  constructor(options: BreakerPolicyOptions = {}, clock: Clock) {
    this.#o = checkBreakerOptions(options);
    this.#clock = clock;
    this.#trip = new TripRules(this.#o);
    this.#bucketMs = this.#o.rollingCountTimeoutMs / this.#o.rollingCountBuckets;
    const n = this.#o.rollingCountBuckets;
    this.#epoch = new Array<number>(n).fill(Number.NEGATIVE_INFINITY);
    this.#ok = new Array<number>(n).fill(0);
    this.#failed = new Array<number>(n).fill(0);
  }

  get state(): BreakerState {
    if (this.#state === 'open' && this.#clock.monotonic() - this.#openedAt >= this.#openMs) {
      this.#probes = 0;
      this.#probeSuccesses = 0;
      this.#transition('halfOpen');
    }
    return this.#state;
  }

  get retryInMs(): number {
    if (this.state !== 'open') return 0;
    return Math.max(0, this.#openedAt + this.#openMs - this.#clock.monotonic());
  }

  get trips(): number {
    return this.#trip.trips;
  }

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
    return this.#listeners.add(listener);
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
    if (state === 'closed') {
      this.#trip.success();
      this.#record(false);
    } else if (state === 'halfOpen') {
      this.#probes = Math.max(0, this.#probes - 1);
      if (++this.#probeSuccesses >= this.#o.halfOpenMaxProbes) this.#close();
    }
  }

  onFailure(failure: FailureInfo = {}): void {
    const { agoMs = 0, tail = false } = failure;
    const state = this.state;
    if (state === 'halfOpen') {
      this.#open(agoMs);
      return;
    }
    if (state !== 'closed') return;
    this.#record(true);
    if (!tail && this.#trip.failure()) {
      this.#open(agoMs);
      return;
    }
    const { calls, failures } = this.window;
    if (
      calls >= this.#o.volumeThreshold &&
      calls > 0 &&
      (failures * 100) / calls >= this.#o.errorThresholdPercentage
    ) {
      this.#open(agoMs);
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

  /** The open time counts from the failure, `agoMs` ago. */
  #open(agoMs: number): void {
    this.#openedAt = this.#clock.monotonic() - Math.max(0, agoMs);
    this.#openMs = this.#trip.opened();
    this.#transition('open');
  }

  #close(): void {
    this.#trip.closed();
    this.#epoch.fill(Number.NEGATIVE_INFINITY);
    this.#transition('closed');
  }

  #transition(to: BreakerState): void {
    const from = this.#state;
    if (from === to) return;
    this.#state = to;
    this.#listeners.emit({ from, to });
  }
}
