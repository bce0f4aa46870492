/**
 * One host's concurrency limit enforced (Netflix concurrency-limits' SimpleLimiter): permits
 * while requests in flight are under the algorithm's limit, each outcome a sample for it.
 * core/limiter.ts keeps one per host under a global ceiling.
 */
import type { Clock } from './clock.js';
import type { LimitAlgorithm } from './limit/limit.js';
import { Listeners } from './listeners.js';

/**
 * One slot of a concurrency limit. Exactly one of success / dropped / ignore counts; later
 * calls are ignored, so a double release in an error path cannot free a slot twice.
 */
export interface LimiterPermit {
  /**
   * The server answered. rttMs defaults to the time since the permit was acquired; lagMs is the
   * event-loop lag measured at completion (see AimdLimit).
   */
  success(sample?: { readonly rttMs?: number; readonly lagMs?: number; readonly queuedMs?: number }): void;
  /** Overload signal (timeout, 429, 503, connection error): the limit backs off. */
  dropped(): void;
  /**
   * The request outlived its host's learned timeout and was given up (core/host-timeout.ts).
   * If nothing the host was sent came back since it was sent, the host gets one request in
   * flight, a probe, until an answer comes (TCP's loss window after a retransmission timeout):
   * a host that stopped answering is not sent a full window of requests that will hang too.
   * `overload`: also a drop for the algorithm (the host's breaker tripped or is open); a hang
   * alone is not one, as a lone 500 is not: drops cut the limit once a window, so a steady tail
   * of hangs would hold a host under its knee for the whole crawl (docs/control-plane.md).
   */
  hung(overload: boolean): void;
  /** Says nothing about the server (aborted at shutdown, blocked by our guard): no sample. */
  ignore(): void;
}

/**
 * Enforces a LimitAlgorithm's limit (Netflix SimpleLimiter): hands out permits while
 * inflight < limit and reports each outcome to the algorithm as a sample.
 */
export class ConcurrencyLimiter {
  readonly #algorithm: LimitAlgorithm;
  readonly #clock: Clock;
  readonly #listeners = new Listeners('available');
  #inflight = 0;
  /** When the last answer in time came (monotonic ms). */
  #lastAnswerAt = Number.NEGATIVE_INFINITY;
  /** A request hung with no answer since it was sent: one request in flight until one comes. */
  #stalled = false;

  constructor(algorithm: LimitAlgorithm, clock: Clock) {
    this.#algorithm = algorithm;
    this.#clock = clock;
    // A raised limit frees slots just like a released permit does.
    algorithm.onChange(() => this.#notifyIfAvailable());
  }

  get inflight(): number {
    return this.#inflight;
  }

  get limit(): number {
    return this.#algorithm.limit;
  }

  /** When the last answer in time came (monotonic ms; -Infinity before the first). */
  get lastAnswerAt(): number {
    return this.#lastAnswerAt;
  }

  /** Whether the host is held to one probe in flight (LimiterPermit.hung). */
  get stalled(): boolean {
    return this.#stalled;
  }

  get algorithm(): LimitAlgorithm {
    return this.#algorithm;
  }

  /** The requests that may be in flight now: the algorithm's limit, or the one probe of a stalled host. */
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

  /** Called (synchronously) whenever a slot may have become free; returns an unsubscribe. */
  onAvailable(listener: () => void): () => void {
    return this.#listeners.add(listener);
  }

  #notifyIfAvailable(): void {
    if (this.#inflight >= this.#room) return;
    this.#listeners.emit();
  }
}
