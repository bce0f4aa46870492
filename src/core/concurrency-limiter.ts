import type { Clock } from './clock.js';
import type { LimitAlgorithm } from './limit/limit.js';
import { Listeners } from './listeners.js';

/** One slot. Only the first outcome call counts, so a double release cannot free a slot twice. */
export interface LimiterPermit {
  /** rttMs defaults to the time since acquire. */
  success(sample?: { readonly rttMs?: number; readonly lagMs?: number; readonly queuedMs?: number }): void;
  dropped(): void;
  /**
   * Given up as hung: with no answer since it was sent, the host gets one probe in flight (TCP after an RTO).
   * `overload` also drops: a hang alone is not one, or a tail of hangs would hold the host under its knee.
   */
  hung(overload: boolean): void;
  ignore(): void;
}

/** Enforces a LimitAlgorithm's limit (Netflix SimpleLimiter); each outcome is a sample. */
export class ConcurrencyLimiter {
  readonly #algorithm: LimitAlgorithm;
  readonly #clock: Clock;
  readonly #listeners = new Listeners('available');
  #inflight = 0;
  #lastAnswerAt = Number.NEGATIVE_INFINITY;
  #stalled = false;

  constructor(algorithm: LimitAlgorithm, clock: Clock) {
    this.#algorithm = algorithm;
    this.#clock = clock;
    // A raised limit frees slots as a release does.
    algorithm.onChange(() => this.#notifyIfAvailable());
  }

  get inflight(): number {
    return this.#inflight;
  }

  get limit(): number {
    return this.#algorithm.limit;
  }

  get lastAnswerAt(): number {
    return this.#lastAnswerAt;
  }

  get stalled(): boolean {
    return this.#stalled;
  }

  get algorithm(): LimitAlgorithm {
    return this.#algorithm;
  }

  get #room(): number {
    return this.#stalled ? 1 : this.#algorithm.limit;
  }

  tryAcquire(): LimiterPermit | undefined {
    if (this.#inflight >= this.#room) return undefined;
    const inflight = ++this.#inflight;
    const startedAt = this.#clock.monotonic();
    let done = false;
    const finish = (report: () => void): void => {
      if (done) return;
      done = true;
      this.#inflight--;
      report();
      this.#notifyIfAvailable();
    };
    const drop = () =>
      this.#algorithm.onSample({
        rttMs: this.#clock.monotonic() - startedAt,
        inflight,
        dropped: true,
        startedAt,
      });
    return {
      success: (sample = {}) =>
        finish(() => {
          this.#lastAnswerAt = this.#clock.monotonic();
          this.#stalled = false;
          this.#algorithm.onSample({
            rttMs: sample.rttMs ?? this.#clock.monotonic() - startedAt,
            lagMs: sample.lagMs ?? 0,
            queuedMs: sample.queuedMs,
            inflight,
            dropped: false,
            startedAt,
          });
        }),
      dropped: () => finish(drop),
      hung: (overload) =>
        finish(() => {
          if (this.#lastAnswerAt < startedAt) this.#stalled = true;
          if (overload) drop();
        }),
      ignore: () => finish(() => undefined),
    };
  }

  onAvailable(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  #notifyIfAvailable(): void {
    if (this.#inflight >= this.#room) return;
    this.#listeners.emit();
  }
}
