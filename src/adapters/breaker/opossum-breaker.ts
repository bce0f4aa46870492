import { EventEmitter } from 'node:events';
import CircuitBreaker from 'opossum';
import { POSITIVE_INT } from '../../core/bound.js';
import { type BreakerPolicyOptions, checkBreakerOptions, TripRules } from '../../core/breaker-policy.js';
import { checkNumber } from '../../core/check.js';
import { Listeners } from '../../core/listeners.js';
import { LruMap } from '../../core/lru-map.js';
import type {
  BreakerState,
  BreakerTransition,
  FailureInfo,
  HostBreaker,
  HostBreakerRegistry,
} from '../../ports/breaker.js';

export interface OpossumHostBreakersOptions extends BreakerPolicyOptions {
  /** Hosts beyond this many are forgotten, least recently used closed ones first. @default 10000 */
  readonly maxHosts?: number;
}

/** The "action" of every breaker: it replays an outcome the scheduler already observed. */
const REPORTED_FAILURE = new Error('reported failure');
const replay = (ok: boolean): Promise<void> => (ok ? Promise.resolve() : Promise.reject(REPORTED_FAILURE));

/**
 * HostBreakerRegistry on opossum 9: each host's breaker wraps a function that replays the outcome
 * the scheduler reports, and TripRules add what opossum lacks (consecutive failures, growing open
 * times). Caveats and why core/host-breakers.ts is the default: docs/control-plane.md.
 */
export class OpossumHostBreakers implements HostBreakerRegistry {
  readonly #o: Required<BreakerPolicyOptions>;
  readonly #rotate = new EventEmitter();
  readonly #interval: NodeJS.Timeout;
  readonly #breakers: LruMap<string, OpossumHostBreaker>;
  readonly #listeners = new Listeners<[BreakerTransition]>('breakerTransition');
  #closed = false;

  constructor(options: OpossumHostBreakersOptions = {}) {
    const { maxHosts = 10_000, ...policy } = options;
    checkNumber('maxHosts', maxHosts, POSITIVE_INT);
    this.#o = checkBreakerOptions(policy);
    this.#rotate.setMaxListeners(0);
    const bucketMs = Math.floor(this.#o.rollingCountTimeoutMs / this.#o.rollingCountBuckets);
    this.#interval = setInterval(() => this.#rotate.emit('rotate'), Math.max(1, bucketMs));
    this.#interval.unref();
    this.#breakers = new LruMap(
      maxHosts,
      (b) => b.state === 'closed',
      (b) => b.shutdown(),
    );
  }

  get size(): number {
    return this.#breakers.size;
  }

  get(host: string): HostBreaker {
    let breaker = this.#breakers.get(host);
    if (!breaker) {
      const circuit = new CircuitBreaker(replay, {
        name: host,
        timeout: false,
        resetTimeout: this.#o.resetTimeoutMs,
        errorThresholdPercentage: this.#o.errorThresholdPercentage,
        rollingCountTimeout: this.#o.rollingCountTimeoutMs,
        rollingCountBuckets: this.#o.rollingCountBuckets,
        volumeThreshold: this.#o.volumeThreshold,
        rollingPercentilesEnabled: false,
        enableSnapshots: false,
        rotateBucketController: this.#rotate,
      });
      breaker = new OpossumHostBreaker(circuit, this.#o, (from, to) => {
        this.#listeners.emit({ host, from, to });
      });
      this.#breakers.set(host, breaker);
    }
    return breaker;
  }

  onTransition(listener: (t: BreakerTransition) => void): () => void {
    return this.#listeners.add(listener);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearInterval(this.#interval);
    for (const [, breaker] of this.#breakers.entries()) breaker.shutdown();
  }
}

class OpossumHostBreaker implements HostBreaker {
  #probes = 0;
  #last: BreakerState = 'closed';
  readonly #trip: TripRules;
  readonly #maxProbes: number;
  /** When it last opened (Date.now: opossum's clock) and for how long. */
  #openedAt = 0;
  #openMs = 0;
  #ago = 0;
  readonly #options: { resetTimeout: number };

  readonly #circuit: CircuitBreaker<[boolean], void>;

  constructor(
    circuit: CircuitBreaker<[boolean], void>,
    options: Required<BreakerPolicyOptions>,
    emit: (from: BreakerState, to: BreakerState) => void,
  ) {
    this.#circuit = circuit;
    this.#trip = new TripRules(options);
    this.#maxProbes = options.halfOpenMaxProbes;
    // Declared by opossum's code (lib/circuit.js reads it when it opens), not by its types.
    const opossumOptions = (circuit as unknown as { options: { resetTimeout: number } }).options;
    this.#options = opossumOptions;
    opossumOptions.resetTimeout = this.#trip.nextOpenMs;
    const on = (to: BreakerState) => () => {
      const from = this.#last;
      this.#last = to;
      this.#probes = 0;
      // opossum armed its reset timer; resetTimeout now holds the next trip's open time.
      if (to === 'open') {
        this.#openedAt = Date.now() - this.#ago;
        this.#openMs = this.#trip.opened();
      }
      if (to === 'closed') this.#trip.closed();
      this.#ago = 0;
      opossumOptions.resetTimeout = this.#trip.nextOpenMs;
      if (from !== to) emit(from, to);
    };
    circuit.on('open', on('open'));
    circuit.on('halfOpen', on('halfOpen'));
    circuit.on('close', on('closed'));
  }

  get state(): BreakerState {
    if (this.#circuit.opened) return 'open';
    return this.#circuit.halfOpen ? 'halfOpen' : 'closed';
  }

  get retryInMs(): number {
    if (!this.#circuit.opened) return 0;
    return Math.max(0, this.#openedAt + this.#openMs - Date.now());
  }

  canPass(): boolean {
    const state = this.state;
    if (state === 'closed') return true;
    if (state === 'open' || this.#probes >= this.#maxProbes) return false;
    this.#probes++;
    return true;
  }

  onSuccess(): void {
    this.#report(true);
  }

  onFailure(failure: FailureInfo = {}): void {
    this.#report(false, Math.max(0, failure.agoMs ?? 0), failure.tail === true);
  }

  onIgnore(): void {
    if (this.state === 'halfOpen') this.#probes = Math.max(0, this.#probes - 1);
  }

  shutdown(): void {
    this.#circuit.shutdown();
  }

  #report(ok: boolean, agoMs = 0, tail = false): void {
    // Outcomes of requests started before it opened are not news (as in the pure policy).
    if (this.#circuit.opened || this.#circuit.isShutdown) return;
    // A failure from agoMs ago opens it as if then (the 'open' listener restores resetTimeout).
    this.#ago = agoMs;
    this.#options.resetTimeout = Math.max(1, this.#trip.nextOpenMs - agoMs);
    if (!this.#circuit.halfOpen) {
      if (ok) this.#trip.success();
      else if (!tail && this.#trip.failure()) {
        this.#circuit.open();
        return;
      }
    }
    this.#circuit
      .fire(ok)
      .catch(() => undefined)
      .finally(() => {
        this.#ago = 0;
        this.#options.resetTimeout = this.#trip.nextOpenMs;
      });
  }
}
