import type { Clock } from '../clock.js';
import { Listeners } from '../listeners.js';
import type { LimitSample } from './limit.js';
import type { LimitWindow, WindowedAlgorithm, WindowPhase } from './windowed.js';

export type AimdChangeReason = 'increase' | 'latency' | 'drop' | 'probe';

export interface AimdStats {
  readonly limit: number;
  /** Percentile latency of the last window with a latency verdict (ms). */
  readonly latencyMs: number | undefined;
  readonly targetMs: number | undefined;
  /** Relative target only: the current baseline (ms). */
  readonly baselineMs: number | undefined;
  /** Relative target only: true while concurrency is pinned to measure the baseline. */
  readonly probing: boolean;
}

/** AimdOptions validated and resolved (aimd.ts), the target unpacked. */
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
  /** Absolute target; undefined: relative to the probed baseline. */
  readonly absoluteMs: number | undefined;
  readonly ratio: number;
  readonly minMarginMs: number;
  readonly probeEveryMs: number;
  readonly probeLimit: number;
}

/**
 * The AIMD decisions, once per window (windowing is WindowedLimit's): grow while the window's
 * latency is under target and the limit was used, cut when it is over or on a drop; slow start
 * and the baseline probes of a relative target. docs/control-plane.md says why each rule is
 * what it is, with the measurements behind it.
 */
export class AimdCore implements WindowedAlgorithm {
  readonly #o: AimdSettings;
  readonly #clock: Clock;
  readonly #listeners = new Listeners<[number, AimdChangeReason]>('limitChange');
  /** The AIMD limit; while probing, `limit` reports the probe's pinned concurrency instead. */
  #limit: number;
  /** Concurrency while probing: `initialLimit` for the first probe, `probeLimit` after. */
  #probeAt: number;
  /** When the enforced limit last changed: samples started before it measured another limit. */
  #lastChangeAt = Number.NEGATIVE_INFINITY;
  #probing = false;
  #nextProbeAt = Number.NEGATIVE_INFINITY;
  #baselineMs: number | undefined;
  #lastLatencyMs: number | undefined;
  #lastTargetMs: number | undefined;
  /** Latency verdict of the previous window (undefined: it had none). */
  #prevLatencyMs: number | undefined;
  /** Slow start lasts until the first cut; after an outage, until the cut or #regrowTo. */
  #slowStart: boolean;
  /** Slow start only: the last window with a verdict was over target, but by less than a cut. */
  #mildlyOver = false;
  /**
   * TCP's ssthresh: the largest concurrency the host last served within target (a window with
   * no drop, its latency not over target), lowered by latency cuts and never by drops, so an
   * outage leaves it as it was before. Undefined until a window has shown one.
   */
  #goodLimit: number | undefined;
  /** Slow start after an outage stops here (undefined: the first slow start, unbounded). */
  #regrowTo: number | undefined;
  /** A drop came, and no window without one has closed since. */
  #failing = false;
  #lastDropCutAt = Number.NEGATIVE_INFINITY;

  /**
   * `start`: where the limit starts instead of initialLimit (what the other daemons of a shared
   * frontier found for the host: limit hints), within [initialLimit, maxLimit]. A relative
   * target's first probe still runs at initialLimit, so the baseline is the host's latency at
   * the load it is trusted with unmeasured, never at the hint; the start is in force from the
   * probe's end (slow start goes on from there).
   */
  constructor(settings: AimdSettings, clock: Clock, start?: number) {
    this.#o = settings;
    this.#clock = clock;
    const { initialLimit, maxLimit } = settings;
    this.#limit =
      start === undefined ? initialLimit : Math.min(maxLimit, Math.max(initialLimit, Math.floor(start)));
    this.#slowStart = settings.slowStart;
    // The first window of a relative limit is a probe of the unloaded baseline, run at the
    // initial limit (the load a host is trusted with before anything is measured), and the
    // later probes, on a host already crawled at its limit, at probeLimit.
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

  /** The breaker closed after an outage. */
  resume(): void {
    this.#recover(true);
  }

  /**
   * An outage ended: its drops cut the limit of a host that was not overloaded. Slow start
   * doubles it back to the last good limit and stops there (TCP: slow start up to ssthresh,
   * then additive increase), so the host is back at its rate in a few short windows without
   * being pushed past its knee. With no good limit known yet, a closed breaker restarts the
   * first, unbounded slow start.
   */
  #recover(breakerClosed: boolean): void {
    this.#failing = false;
    if (!this.#o.slowStart) return;
    const to = this.#goodLimit;
    if (to === undefined ? !breakerClosed : this.#limit >= to) return;
    this.#slowStart = true;
    this.#regrowTo = to;
    this.#mildlyOver = false;
  }

  /** Short windows in slow start, and while failing: the first window without a drop says the host is back. */
  phase(): WindowPhase {
    return this.#probing ? 'probe' : this.#slowStart || this.#failing ? 'slowStart' : 'steady';
  }

  /** The requests still draining from above the probe limit must not close a probe window. */
  counts(sample: LimitSample): boolean {
    return !this.#probing || sample.inflight <= this.#probeAt;
  }

  /**
   * Left out of the latency verdict (never out of drops): a sample our own event loop delayed
   * by more than maxLagFraction of its RTT (the crawler, not the server, was slow); one that
   * started before the last change of the limit (it measured another concurrency: one
   * overload would cut twice, and slow start would double again past the knee); and, in a
   * probe, one that started above the pinned concurrency (the probe measures the unloaded host).
   */
  usable(sample: LimitSample): boolean {
    const { rttMs, lagMs = 0, startedAt, inflight } = sample;
    if (!Number.isFinite(rttMs) || rttMs < 0 || Math.max(0, lagMs) > this.#o.maxLagFraction * rttMs) {
      return false;
    }
    if (startedAt !== undefined && startedAt < this.#lastChangeAt) return false;
    return !this.#probing || inflight <= this.#probeAt;
  }

  /** At most one cut per windowMs: the short windows of a failing host must not cut faster than steady ones. */
  onDrop(): void {
    this.#failing = true;
    const now = this.#clock.monotonic();
    if (now - this.#lastDropCutAt < this.#o.windowMs) return;
    this.#lastDropCutAt = now;
    this.#decrease('drop');
  }

  onWindow(w: LimitWindow): void {
    // A limit nobody used says nothing about the server (as Netflix AIMDLimit).
    const used = w.maxInflight * 2 >= this.limit;
    if (this.#probing) this.#endProbe(w.latencyMs, used, w.now);
    else if (!w.cut && w.latencyMs !== undefined) {
      // A window served without a drop after drops ends an outage the breaker may not have seen
      // (a host failing one request in four never opens it). Not a single success: between
      // the drops of a flaky host it would restart the regrowth again and again.
      if (this.#failing) this.#recover(false);
      this.#judge(w.latencyMs, used, w.maxInflight);
    }
    // No verdict (samples lagged, or started before the last cut): hold. Growing here would
    // let a CPU-bound crawler, all of whose samples are discounted, drift past the knee.
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
      // The first probe ran at the limit itself: it was a slow-start window under target too.
      this.#grow(2);
    } else if (this.#limit > pinnedAt) {
      this.#emit('probe');
    }
  }

  #judge(latency: number, used: boolean, maxInflight: number): void {
    // In slow start the baseline is the probe's: windows right after a doubling complete in
    // bursts, and their queue estimate reads low.
    if (this.#o.absoluteMs === undefined && !this.#slowStart) this.#updateBaseline(latency);
    const target =
      this.#o.absoluteMs ??
      Math.max(this.#baselineMs! * this.#o.ratio, this.#baselineMs! + this.#o.minMarginMs);
    this.#lastLatencyMs = latency;
    this.#lastTargetMs = target;
    const over = latency > target * (1 + this.#o.tolerance);
    if (!over && used) this.#goodLimit = Math.max(this.#goodLimit ?? 0, Math.min(this.#limit, maxInflight));
    if (over && this.#slowStart && latency < 2 * (this.#baselineMs ?? target) && !this.#mildlyOver) {
      // Slow start ends for good at its first cut: one noisy window (a stall of our own process)
      // must not end it. A doubling that lands at twice the knee doubles the latency: that ends
      // it at once; anything less must show in two windows in a row.
      this.#mildlyOver = true;
    } else if (over) {
      this.#decrease('latency', target / latency);
    } else if (latency <= target && used) {
      this.#grow(target / latency);
    }
    if (!over) this.#mildlyOver = false;
  }

  /**
   * Between probes. A window run at no more than the probe limit measured what a probe
   * measures, so it replaces the baseline, up or down (a baseline under the host's real
   * unloaded latency would pin the limit at its minimum until the next probe). Otherwise the
   * baseline only falls, and only to the larger of the last two windows: a running minimum of
   * noisy window medians drifts below the truth.
   */
  #updateBaseline(latency: number): void {
    if (this.#limit <= this.#o.probeLimit) {
      this.#baselineMs = latency;
      return;
    }
    const candidate = Math.max(latency, this.#prevLatencyMs ?? Number.POSITIVE_INFINITY);
    this.#baselineMs = Math.min(this.#baselineMs ?? latency, candidate);
  }

  /**
   * Slow start doubles. After it, by Little's law (were the host at its knee, latency would grow
   * in proportion to concurrency) limit × target / latency is the largest limit that cannot
   * overshoot the target by more than the knee does: well under target a big step, near it
   * +`increase`, the classic additive probe; capped at `maxGrowthRatio`.
   */
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

  /**
   * A latency cut goes towards where the latency puts the knee (Little's law again): limit ×
   * target / latency, cutting by at least backoffRatio and at most half (in slow start, half is
   * the last limit that was under target). A drop cuts by backoffRatio, or halves in the first
   * slow start (after an outage the doublings only went back to a limit known to be good). A
   * latency cut also lowers the good limit to the cut's: the knee is below it now.
   */
  #decrease(reason: AimdChangeReason, targetOverLatency?: number): void {
    const ratio =
      targetOverLatency !== undefined
        ? Math.max(0.5, Math.min(this.#o.backoffRatio, targetOverLatency))
        : this.#slowStart && this.#regrowTo === undefined
          ? 0.5
          : this.#o.backoffRatio;
    this.#endSlowStart();
    // The limit is an integer, so floor(limit × ratio) < limit: every cut makes progress.
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
    // While probing the enforced limit stays pinned; the change shows when the probe ends.
    if (!this.#probing || clamped < this.#probeAt) this.#emit(reason);
  }

  /** Every change of the enforced limit goes through here, so it also marks stale samples. */
  #emit(reason: AimdChangeReason): void {
    this.#lastChangeAt = this.#clock.monotonic();
    this.#listeners.emit(this.limit, reason);
  }
}
