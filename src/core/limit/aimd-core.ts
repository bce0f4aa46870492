import type { Clock } from '../clock.js';
import { Listeners } from '../listeners.js';
import type { LimitSample } from './limit.js';
import type { LimitWindow, WindowedAlgorithm, WindowPhase } from './windowed.js';

export type AimdChangeReason = 'increase' | 'latency' | 'drop' | 'probe';

export interface AimdStats {
  readonly limit: number;
  readonly latencyMs: number | undefined;
  readonly targetMs: number | undefined;
  readonly baselineMs: number | undefined;
  readonly probing: boolean;
}

export interface AimdSettings {
  readonly initialLimit: number;
  readonly minLimit: number;
  readonly maxLimit: number;
  readonly increase: number;
  readonly maxGrowthRatio: number;
  readonly backoffRatio: number;
  readonly tolerance: number;
  readonly maxLagFraction: number;
  readonly slowStart: boolean;
  readonly windowMs: number;
  readonly absoluteMs: number | undefined;
  readonly ratio: number;
  readonly minMarginMs: number;
  readonly probeEveryMs: number;
  readonly probeLimit: number;
}

/** The AIMD decisions, once per window; docs/control-plane.md says why each rule is what it is. */
export class AimdCore implements WindowedAlgorithm {
  readonly #o: AimdSettings;
  readonly #clock: Clock;
  readonly #listeners = new Listeners<[number, AimdChangeReason]>('limitChange');
  /** While probing, `limit` reports the pinned concurrency instead. */
  #limit: number;
  #probeAt: number;
  /** Samples started before it measured another limit. */
  #lastChangeAt = Number.NEGATIVE_INFINITY;
  #probing = false;
  #nextProbeAt = Number.NEGATIVE_INFINITY;
  #baselineMs: number | undefined;
  #lastLatencyMs: number | undefined;
  #lastTargetMs: number | undefined;
  #prevLatencyMs: number | undefined;
  #slowStart: boolean;
  /** Slow start: the last verdict was over target by less than a cut. */
  #mildlyOver = false;
  /** TCP's ssthresh: the largest limit last served within target; drops never lower it, so an outage leaves it. */
  #goodLimit: number | undefined;
  #regrowTo: number | undefined;
  #failing = false;
  #lastDropCutAt = Number.NEGATIVE_INFINITY;

  /** `start`: a limit hint. The first probe still runs at initialLimit, so the baseline is never measured at the hint. */
  constructor(settings: AimdSettings, clock: Clock, start?: number) {
    this.#o = settings;
    this.#clock = clock;
    const { initialLimit, maxLimit } = settings;
    this.#limit =
      start === undefined ? initialLimit : Math.min(maxLimit, Math.max(initialLimit, Math.floor(start)));
    this.#slowStart = settings.slowStart;
    // The first probe runs at the initial limit, later ones at probeLimit.
    this.#probeAt = Math.max(initialLimit, settings.probeLimit);
    if (settings.absoluteMs === undefined) this.#probing = true;
  }

  get limit(): number {
    return this.#probing ? Math.min(this.#limit, this.#probeAt) : this.#limit;
  }

  stats(): AimdStats {
    return {
      limit: this.limit,
      latencyMs: this.#lastLatencyMs,
      targetMs: this.#lastTargetMs,
      baselineMs: this.#baselineMs,
      probing: this.#probing,
    };
  }

  onChange(listener: (limit: number, reason: AimdChangeReason) => void): () => void {
    return this.#listeners.add(listener);
  }

  resume(): void {
    this.#recover(true);
  }

  /** After an outage, slow start doubles back to the last good limit and stops there (TCP: up to ssthresh). */
  #recover(breakerClosed: boolean): void {
    this.#failing = false;
    if (!this.#o.slowStart) return;
    const to = this.#goodLimit;
    if (to === undefined ? !breakerClosed : this.#limit >= to) return;
    this.#slowStart = true;
    this.#regrowTo = to;
    this.#mildlyOver = false;
  }

  /** Short windows while failing: the first window without a drop says the host is back. */
  phase(): WindowPhase {
    return this.#probing ? 'probe' : this.#slowStart || this.#failing ? 'slowStart' : 'steady';
  }

  counts(sample: LimitSample): boolean {
    return !this.#probing || sample.inflight <= this.#probeAt;
  }

  /** Left out of the verdict: samples our own loop delayed, started before the last change, or above a probe's limit. */
  usable(sample: LimitSample): boolean {
    const { rttMs, lagMs = 0, startedAt, inflight } = sample;
    if (!Number.isFinite(rttMs) || rttMs < 0 || Math.max(0, lagMs) > this.#o.maxLagFraction * rttMs) {
      return false;
    }
    if (startedAt !== undefined && startedAt < this.#lastChangeAt) return false;
    return !this.#probing || inflight <= this.#probeAt;
  }

  /** At most one cut per windowMs. */
  onDrop(): void {
    this.#failing = true;
    const now = this.#clock.monotonic();
    if (now - this.#lastDropCutAt < this.#o.windowMs) return;
    this.#lastDropCutAt = now;
    this.#decrease('drop');
  }

  onWindow(w: LimitWindow): void {
    // A limit nobody used says nothing about the server (Netflix AIMDLimit).
    const used = w.maxInflight * 2 >= this.limit;
    if (this.#probing) this.#endProbe(w.latencyMs, used, w.now);
    else if (!w.cut && w.latencyMs !== undefined) {
      // A window without a drop ends an outage the breaker may not have seen; not one success, or a flaky host regrows forever.
      if (this.#failing) this.#recover(false);
      this.#judge(w.latencyMs, used, w.maxInflight);
    }
    // No verdict: hold. Growing would let a CPU-bound crawler, whose samples are all discounted, drift past the knee.
    if (!this.#probing && w.now >= this.#nextProbeAt && this.#o.absoluteMs === undefined) {
      this.#probing = true;
      if (this.#limit > this.#o.probeLimit) this.#emit('probe');
    }
    this.#prevLatencyMs = w.latencyMs;
  }

  #endProbe(latency: number | undefined, used: boolean, now: number): void {
    if (latency !== undefined) this.#baselineMs = latency;
    const pinnedAt = this.#probeAt;
    this.#probing = false;
    this.#probeAt = this.#o.probeLimit;
    this.#nextProbeAt = now + this.#o.probeEveryMs;
    if (this.#slowStart && pinnedAt >= this.#limit && latency !== undefined && used) {
      // The first probe ran at the limit itself: a slow-start window under target too.
      this.#grow(2);
    } else if (this.#limit > pinnedAt) {
      this.#emit('probe');
    }
  }

  #judge(latency: number, used: boolean, maxInflight: number): void {
    // In slow start the windows after a doubling complete in bursts, and their queue estimate reads low.
    if (this.#o.absoluteMs === undefined && !this.#slowStart) this.#updateBaseline(latency);
    const target =
      this.#o.absoluteMs ??
      Math.max(this.#baselineMs! * this.#o.ratio, this.#baselineMs! + this.#o.minMarginMs);
    this.#lastLatencyMs = latency;
    this.#lastTargetMs = target;
    const over = latency > target * (1 + this.#o.tolerance);
    if (!over && used) this.#goodLimit = Math.max(this.#goodLimit ?? 0, Math.min(this.#limit, maxInflight));
    if (over && this.#slowStart && latency < 2 * (this.#baselineMs ?? target) && !this.#mildlyOver) {
      // One noisy window must not end slow start: only a doubling of latency, or two windows over in a row.
      this.#mildlyOver = true;
    } else if (over) {
      this.#decrease('latency', target / latency);
    } else if (latency <= target && used) {
      this.#grow(target / latency);
    }
    if (!over) this.#mildlyOver = false;
  }

  /** A window at the probe limit replaces the baseline; otherwise it only falls, to the larger of the last two windows. */
  #updateBaseline(latency: number): void {
    if (this.#limit <= this.#o.probeLimit) {
      this.#baselineMs = latency;
      return;
    }
    const candidate = Math.max(latency, this.#prevLatencyMs ?? Number.POSITIVE_INFINITY);
    this.#baselineMs = Math.min(this.#baselineMs ?? latency, candidate);
  }

  /** After slow start, Little's law: limit × target / latency, at least +increase, at most × maxGrowthRatio. */
  #grow(targetOverLatency: number): void {
    if (this.#slowStart) {
      const to = this.#regrowTo;
      if (to !== undefined && this.#limit * 2 >= to) this.#endSlowStart();
      this.#set(to === undefined ? this.#limit * 2 : Math.min(to, this.#limit * 2), 'increase');
      return;
    }
    const proportional = Math.floor(this.#limit * Math.min(this.#o.maxGrowthRatio, targetOverLatency));
    this.#set(Math.max(this.#limit + this.#o.increase, proportional), 'increase');
  }

  /** A latency cut goes towards the knee (Little's law) and lowers the good limit; a drop cuts by backoffRatio. */
  #decrease(reason: AimdChangeReason, targetOverLatency?: number): void {
    const ratio =
      targetOverLatency !== undefined
        ? Math.max(0.5, Math.min(this.#o.backoffRatio, targetOverLatency))
        : this.#slowStart && this.#regrowTo === undefined
          ? 0.5
          : this.#o.backoffRatio;
    this.#endSlowStart();
    // floor(limit × ratio) < limit: every cut makes progress.
    this.#set(Math.floor(this.#limit * ratio), reason);
    if (reason === 'latency' && this.#goodLimit !== undefined)
      this.#goodLimit = Math.min(this.#goodLimit, this.#limit);
  }

  #endSlowStart(): void {
    this.#slowStart = false;
    this.#regrowTo = undefined;
  }

  #set(limit: number, reason: AimdChangeReason): void {
    const clamped = Math.min(this.#o.maxLimit, Math.max(this.#o.minLimit, limit));
    if (clamped === this.#limit) return;
    this.#limit = clamped;
    // While probing the enforced limit stays pinned.
    if (!this.#probing || clamped < this.#probeAt) this.#emit(reason);
  }

  /** Every change of the enforced limit goes through here, so it also marks stale samples. */
  #emit(reason: AimdChangeReason): void {
    this.#lastChangeAt = this.#clock.monotonic();
    this.#listeners.emit(this.limit, reason);
  }
}
