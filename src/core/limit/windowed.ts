import type { Clock } from '../clock.js';
import type { LimitAlgorithm, LimitSample } from './limit.js';

/**
 * Windowing for a limit algorithm that decides once per window, as Netflix
 * concurrency-limits' `WindowedLimit` wraps its delegate: samples are gathered here, and the
 * delegate sees one summary per window (its percentile latency, its peak inflight). Only
 * drops reach the delegate at once, at most one per window: a burst of errors caused by one
 * overload must not collapse the limit in one go.
 */

/** Which window length applies; the delegate's state decides. */
export type WindowPhase = 'probe' | 'slowStart' | 'steady';

/** What a closing window hands the delegate. */
export interface LimitWindow {
  /** Percentile of the usable samples' latencies, ms; undefined: too few samples to judge. */
  readonly latencyMs: number | undefined;
  /** Peak inflight over the window's samples. */
  readonly maxInflight: number;
  /** A drop in this window already cut the limit. */
  readonly cut: boolean;
  /** clock.monotonic() at the close. */
  readonly now: number;
}

/** The delegate: a limit decided per window (Netflix's AIMDLimit behind a WindowedLimit). */
export interface WindowedAlgorithm extends Omit<LimitAlgorithm, 'onSample'> {
  phase(): WindowPhase;
  /** Whether the sample counts towards closing the window. */
  counts(sample: LimitSample): boolean;
  /** Whether the sample's latency may enter the window's verdict. */
  usable(sample: LimitSample): boolean;
  /** The window's first drop: cut now. */
  onDrop(): void;
  onWindow(window: LimitWindow): void;
}

export interface WindowOptions {
  /** A steady window closes at the first sample when it is at least this old... */
  readonly windowMs: number;
  /** ...and holds at least this many samples (a probe window: this many, however short). */
  readonly minWindowSamples: number;
  /**
   * Slow start's shorter window; it needs minWindowSamples *usable* samples, since right after
   * a doubling most completions started under the old limit and say nothing of the new one.
   */
  readonly slowStartWindowMs: number;
  /** Latency percentile of the window, in (0, 1]. */
  readonly percentile: number;
}

export class WindowedLimit implements LimitAlgorithm {
  readonly #delegate: WindowedAlgorithm;
  readonly #o: WindowOptions;
  readonly #clock: Clock;
  #windowStart: number | undefined;
  #count = 0;
  #maxInflight = 0;
  #cut = false;
  #latencies: number[] = [];

  constructor(delegate: WindowedAlgorithm, options: WindowOptions, clock: Clock) {
    this.#delegate = delegate;
    this.#o = options;
    this.#clock = clock;
  }

  get limit(): number {
    return this.#delegate.limit;
  }

  onChange(listener: (limit: number, reason?: string) => void): () => void {
    return this.#delegate.onChange(listener);
  }

  resume(): void {
    this.#delegate.resume?.();
  }

  onSample(sample: LimitSample): void {
    const now = this.#clock.monotonic();
    this.#windowStart ??= now;
    if (this.#delegate.counts(sample)) this.#count++;
    this.#maxInflight = Math.max(this.#maxInflight, sample.inflight);
    if (sample.dropped) {
      if (!this.#cut) {
        this.#delegate.onDrop();
        this.#cut = true;
      }
    } else if (this.#delegate.usable(sample)) {
      // Net of the crawler's own share: the response's wait in our event loop when estimated,
      // else the lag measured at completion.
      this.#latencies.push(Math.max(0, sample.rttMs - Math.max(0, sample.queuedMs ?? sample.lagMs ?? 0)));
    }
    if (this.#closes(now - this.#windowStart)) this.#close(now);
  }

  #closes(elapsed: number): boolean {
    const { minWindowSamples: min, windowMs } = this.#o;
    const full = this.#count >= min && elapsed >= windowMs;
    switch (this.#delegate.phase()) {
      case 'probe':
        // On its samples alone: a probe runs the host at a fraction of its throughput, so every
        // millisecond of it is lost work (docs/control-plane.md).
        return this.#count >= min;
      case 'slowStart':
        // Still closed after windowMs on any samples, so a crawler whose samples are all
        // lagged does not stay in slow start.
        return (this.#latencies.length >= min && elapsed >= this.#o.slowStartWindowMs) || full;
      case 'steady':
        return full;
    }
  }

  #close(now: number): void {
    // Fewer usable samples than a quarter of a window is noise, not a latency verdict.
    const enough = this.#latencies.length >= Math.max(1, Math.ceil(this.#o.minWindowSamples / 4));
    this.#delegate.onWindow({
      latencyMs: enough ? percentile(this.#latencies, this.#o.percentile) : undefined,
      maxInflight: this.#maxInflight,
      cut: this.#cut,
      now,
    });
    this.#windowStart = now;
    this.#count = 0;
    this.#maxInflight = 0;
    this.#cut = false;
    this.#latencies = [];
  }
}

/** Nearest-rank percentile of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index]!;
}
