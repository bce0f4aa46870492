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
 * HostBreakerRegistry backed by opossum 9. opossum is built to wrap the call itself
 * (`breaker.fire(...)`); the scheduler instead needs to ask "may this host pass?" before
 * leasing work and to report the outcome afterwards. So each host's CircuitBreaker wraps a
 * function that replays the reported outcome: onSuccess() fires it with true, onFailure()
 * with false, and opossum's own rolling window, threshold and reset timer make the decisions.
 *
 * Consequences, which is why core/host-breakers.ts exists as the default:
 * - opossum settles a fired action on a microtask, so state changes appear one tick after
 *   onFailure()/onSuccess(), not synchronously.
 * - its reset timer and bucket rotation use the global Date.now/setTimeout, not an injected
 *   Clock: its tests fake those globals (vitest fake timers) instead.
 * - in half-open opossum lets exactly one fire through and the first outcome decides; this
 *   adapter admits up to halfOpenMaxProbes requests but the first reported outcome decides.
 * - opossum opens when the failure rate is strictly greater than the threshold (the pure
 *   policy: greater or equal).
 * opossum has neither a consecutive-failure trip nor a growing open time; the adapter adds
 * both with the pure policy's TripRules: a run of consecutiveFailures calls circuit.open(),
 * and opossum reads options.resetTimeout each time it opens, so the adapter keeps it set to
 * the next trip's open time (docs/control-plane.md).
 * To keep timers bounded, all breakers share one unref'd bucket-rotation interval (opossum's
 * rotateBucketController) and per-breaker snapshots are disabled; evicted breakers are shut down.
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
  /** When it last opened (Date.now, opossum's clock) and for how long. */
  #openedAt = 0;
  #openMs = 0;
  /** How long ago the failure being reported happened (onFailure's agoMs), while it is reported. */
  #ago = 0;
  /** opossum's options object, whose resetTimeout it reads each time it opens. */
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
      // opossum's own 'open' listener has armed its reset timer with options.resetTimeout;
      // from here on it holds the open time of the trip after this one.
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
    // Outcomes of requests started before the breaker opened are not news: opossum would
    // count them as rejections, so they are dropped here, as in the pure policy.
    if (this.#circuit.opened || this.#circuit.isShutdown) return;
    // A failure from agoMs ago that opens the breaker opens it as if then: opossum arms its
    // reset timer with options.resetTimeout when it opens (the 'open' listener restores it).
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
