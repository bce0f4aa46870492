import type { Clock } from '../clock.js';
import type { LimitAlgorithm, LimitSample } from './limit.js';

/** Netflix's WindowedLimit: one summary per window; drops at once, at most one per window. */

export type WindowPhase = 'probe' | 'slowStart' | 'steady';

export interface LimitWindow {
  /** Undefined: too few samples to judge. */
  readonly latencyMs: number | undefined;
  readonly maxInflight: number;
  readonly cut: boolean;
  readonly now: number;
}

export interface WindowedAlgorithm extends Omit<LimitAlgorithm, 'onSample'> {
  phase(): WindowPhase;
  counts(sample: LimitSample): boolean;
  usable(sample: LimitSample): boolean;
  onDrop(): void;
  onWindow(window: LimitWindow): void;
}

export interface WindowOptions {
  readonly windowMs: number;
  readonly minWindowSamples: number;
  /** Needs minWindowSamples *usable* samples: after a doubling most completions say nothing of the new limit. */
  readonly slowStartWindowMs: number;
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
      // Net of our own share: the response's wait in our event loop, else the lag at completion.
      this.#latencies.push(Math.max(0, sample.rttMs - Math.max(0, sample.queuedMs ?? sample.lagMs ?? 0)));
    }
    if (this.#closes(now - this.#windowStart)) this.#close(now);
  }

  #closes(elapsed: number): boolean {
    const { minWindowSamples: min, windowMs } = this.#o;
    const full = this.#count >= min && elapsed >= windowMs;
    switch (this.#delegate.phase()) {
      case 'probe':
        // A probe is lost throughput, so it closes on its samples alone.
        return this.#count >= min;
      case 'slowStart':
        // windowMs on any samples closes it too, or a lagged crawler stays in slow start.
        return (this.#latencies.length >= min && elapsed >= this.#o.slowStartWindowMs) || full;
      case 'steady':
        return full;
    }
  }

  #close(now: number): void {
    // Under a quarter of a window is noise, not a verdict.
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

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index]!;
}
