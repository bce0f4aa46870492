import { checkNumber, checkOrder } from '../check.js';
import type { Clock } from '../clock.js';
import { InvalidArgumentError } from '../errors.js';
import type { LimitAlgorithm, LimitSample } from './limit.js';

/**
 * Latency target of the AIMD limit.
 * - `absolute`: the window percentile must stay at or under `latencyMs`.
 * - `relative`: the window percentile must stay at or under `ratio` × baseline. The baseline
 *   is the window percentile measured with concurrency pinned for one window of
 *   `minWindowSamples` samples, however short: at start to the initial limit, then every
 *   `minRttWindowMs` to `probeLimit`. After slow start, lowered by smaller window percentiles.
 */
export type AimdTarget =
  | { readonly kind: 'absolute'; readonly latencyMs: number }
  | {
      readonly kind: 'relative';
      /** @default 1.15 */
      readonly ratio?: number;
      /**
       * The target is at least baseline + this: the crawler's own per-response queueing (a
       * few ms at high rates, invisible to the lag monitor) is a larger share of a fast
       * host's latency than `ratio` allows. @default 10
       */
      readonly minMarginMs?: number;
      /** How often the baseline is re-measured. @default 60000 */
      readonly minRttWindowMs?: number;
      /** Concurrency while the baseline is measured. @default 3 */
      readonly probeLimit?: number;
    };

export interface AimdOptions {
  /** @default 8 */
  readonly initialLimit?: number;
  /** @default 1 */
  readonly minLimit?: number;
  /** @default 256 */
  readonly maxLimit?: number;
  /** Added to the limit after a window under target in which the limit was used. @default 1 */
  readonly increase?: number;
  /**
   * After slow start, a window under target grows the limit to limit × target / latency (where
   * the latency would reach the target if the host were already at its knee), at least by
   * `increase` and at most by this factor. 1 leaves plain additive increase. @default 1.25
   */
  readonly maxGrowthRatio?: number;
  /** Multiplier on a drop or a window over target, in [0.5, 1). @default 0.9 */
  readonly backoffRatio?: number;
  /** A window closes at the first sample when it is at least this old... @default 1000 */
  readonly windowMs?: number;
  /** ...and holds at least this many samples. @default 20 */
  readonly minWindowSamples?: number;
  /** Latency percentile compared with the target, in (0, 1]. @default 0.5 */
  readonly percentile?: number;
  /** @default { kind: 'relative', ratio: 1.15, minMarginMs: 10, minRttWindowMs: 60000, probeLimit: 3 } */
  readonly target?: AimdTarget;
  /**
   * Dead band above the target: a window percentile in (target, target × (1 + tolerance)]
   * neither grows nor cuts the limit, so measurement noise does not make it saw. @default 0.05
   */
  readonly tolerance?: number;
  /** A sample whose lagMs exceeds this fraction of its rttMs is left out of the latency decision. @default 0.5 */
  readonly maxLagFraction?: number;
  /**
   * Until the first cut, double the limit after each window under target instead of adding
   * `increase` (TCP's slow start), so a host with room is found in a few windows. @default true
   */
  readonly slowStart?: boolean;
  /**
   * Window length during slow start: a new host's limit is found in well under a second instead
   * of several `windowMs`. A slow-start window also needs minWindowSamples samples that started
   * after the last change of the limit, so on a slow host it lasts as long as those take (at
   * least one round trip). @default 100
   */
  readonly slowStartWindowMs?: number;
}

export const aimdDefaults = {
  initialLimit: 8,
  minLimit: 1,
  maxLimit: 256,
  increase: 1,
  maxGrowthRatio: 1.25,
  backoffRatio: 0.9,
  windowMs: 1000,
  minWindowSamples: 20,
  percentile: 0.5,
  target: { kind: 'relative', ratio: 1.15, minMarginMs: 10, minRttWindowMs: 60_000, probeLimit: 3 },
  tolerance: 0.05,
  maxLagFraction: 0.5,
  slowStart: true,
  slowStartWindowMs: 100,
} as const satisfies Required<AimdOptions>;

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

/**
 * Additive-increase / multiplicative-decrease on latency and drops, decided once per window.
 *
 * Why latency: a crawler must not find a host's capacity by overloading it until it errors.
 * Queueing shows up as latency before it shows up as errors, so the limit grows by `increase`
 * per window while the window's percentile latency is at or under the target, and shrinks by
 * `backoffRatio` when it is over. Growth also needs the limit to have been used (peak inflight
 * at least half of it, as Netflix AIMDLimit): a limit nobody used says nothing about the server.
 *
 * Relative target: with no known latency budget, the target is `ratio` × the latency of the
 * unloaded host. A plain sliding minimum of observed latencies drifts upward: once the limit
 * oscillates above the knee, no window is unloaded any more, the minimum expires, and the
 * target ratchets up with the load (measured in simulation: 4.5× the knee with ratio 2). So, as
 * Envoy's adaptive concurrency does, the baseline is re-measured every `minRttWindowMs` by
 * pinning concurrency to `probeLimit` for one window (the first probe, on a host not loaded
 * yet, runs at the initial limit); samples that started above the pinned concurrency are left
 * out. Between probes the baseline only falls, to any smaller window latency.
 * Because it is re-measured, it also rises when the server really became slower.
 *
 * Drops (timeout, 429, 503, connection error) cut at once, but at most once per window: a
 * burst of errors caused by one overload must not collapse the limit to 1 in one go.
 *
 * Lag discount: on a fast local site the crawler's own CPU is the bottleneck. Its event-loop
 * lag delays every completion callback, inflating every measured latency, and a naive AIMD
 * reads that as server overload and falls to 1, which starves the crawl without helping
 * anyone. So the caller passes the lag measured with each sample, and a sample whose lag
 * exceeds `maxLagFraction` of its RTT is left out of the latency decision (never out of the
 * drop decision). What is subtracted from the RTT is the sample's `queuedMs` (the response's own
 * wait in the event loop, estimated per response), or the lag when there is none. A window left with fewer than a quarter of
 * `minWindowSamples` usable samples has no latency verdict and holds the limit: nothing says
 * the server is overloaded, and nothing says more concurrency would help a saturated crawler.
 *
 * Stale samples: a request that started before the last change of the limit was measured
 * under another concurrency; if `startedAt` is given such samples are left out of the latency
 * decision. Otherwise one overload cuts twice, and, in slow start, a window closing soon after
 * a doubling judges the new limit by requests sent under the old one and doubles again past
 * the knee (seen on a real 50 ms site with K = 16: 16 → 32 → 64).
 */
export class AimdLimit implements LimitAlgorithm {
  readonly #o: Omit<Required<AimdOptions>, 'target'>;
  readonly #absoluteMs: number | undefined;
  readonly #ratio: number;
  readonly #minMarginMs: number;
  readonly #probeEveryMs: number;
  readonly #probeLimit: number;
  readonly #clock: Clock;
  readonly #listeners = new Set<(limit: number, reason: AimdChangeReason) => void>();
  /** The AIMD limit; while probing, `limit` reports the probe's pinned concurrency instead. */
  #limit: number;
  /** Concurrency while probing: `initialLimit` for the first probe, `probeLimit` after. */
  #probeAt: number;

  #windowStart: number | undefined;
  #count = 0;
  #maxInflight = 0;
  #cut = false;
  #latencies: number[] = [];
  /** When the enforced limit last changed: samples started before it measured another limit. */
  #lastChangeAt = Number.NEGATIVE_INFINITY;

  #probing = false;
  #nextProbeAt = Number.NEGATIVE_INFINITY;
  #baselineMs: number | undefined;
  #lastLatencyMs: number | undefined;
  #lastTargetMs: number | undefined;
  /** Latency verdict of the previous window (undefined: it had none). */
  #prevLatencyMs: number | undefined;
  /** Slow start lasts until the first cut. */
  #slowStart: boolean;
  /** Slow start only: the last window with a verdict was over target, but by less than a cut. */
  #mildlyOver = false;

  constructor(options: AimdOptions = {}, clock: Clock) {
    const o = { ...aimdDefaults, ...options };
    checkNumber('minLimit', o.minLimit, { min: 1, integer: true });
    checkNumber('maxLimit', o.maxLimit, { min: 1, integer: true });
    checkOrder('minLimit', o.minLimit, 'maxLimit', o.maxLimit);
    checkNumber('initialLimit', o.initialLimit, { min: o.minLimit, max: o.maxLimit, integer: true });
    checkNumber('increase', o.increase, { min: 1, integer: true });
    checkNumber('maxGrowthRatio', o.maxGrowthRatio, { min: 1, max: 2 });
    checkNumber('backoffRatio', o.backoffRatio, { min: 0.5, max: 1, maxExclusive: true });
    checkNumber('windowMs', o.windowMs, { min: 0 });
    checkNumber('slowStartWindowMs', o.slowStartWindowMs, { min: 0 });
    checkNumber('minWindowSamples', o.minWindowSamples, { min: 1, integer: true });
    checkNumber('percentile', o.percentile, { min: 0, minExclusive: true, max: 1 });
    checkNumber('tolerance', o.tolerance, { min: 0 });
    checkNumber('maxLagFraction', o.maxLagFraction, { min: 0, max: 1 });
    const t = o.target;
    if (t.kind === 'absolute') {
      this.#absoluteMs = checkNumber('target.latencyMs', t.latencyMs, { min: 0, minExclusive: true });
      this.#ratio = 1;
      this.#minMarginMs = 0;
      this.#probeEveryMs = Number.POSITIVE_INFINITY;
      this.#probeLimit = o.minLimit;
    } else if (t.kind === 'relative') {
      const d = aimdDefaults.target;
      this.#ratio = checkNumber('target.ratio', t.ratio ?? d.ratio, { min: 1 });
      this.#minMarginMs = checkNumber('target.minMarginMs', t.minMarginMs ?? d.minMarginMs, { min: 0 });
      this.#probeEveryMs = checkNumber('target.minRttWindowMs', t.minRttWindowMs ?? d.minRttWindowMs, {
        min: 0,
        minExclusive: true,
      });
      this.#probeLimit = checkNumber('target.probeLimit', t.probeLimit ?? d.probeLimit, {
        min: 1,
        integer: true,
      });
    } else {
      const kind = JSON.stringify((t as { kind: unknown }).kind);
      throw new InvalidArgumentError(`Expected \`target.kind\` to be 'absolute' or 'relative', got ${kind}`);
    }
    this.#o = o;
    this.#clock = clock;
    this.#limit = o.initialLimit;
    this.#slowStart = o.slowStart;
    // The first window of a relative limit is a probe: it measures the unloaded baseline. It
    // runs at the initial limit, the load a host is trusted with before anything is measured:
    // at probeLimit it took 20 samples at 3 in flight, seven round trips at a fraction of the
    // throughput, and the window after it ran at the initial limit anyway. The later probes,
    // which re-measure a host already crawled at its limit, pin probeLimit.
    this.#probeAt = Math.max(o.initialLimit, this.#probeLimit);
    if (this.#absoluteMs === undefined) this.#probing = true;
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
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Back to slow start (doubling per window until latency says stop) after an outage: the
   * outage's drops cut a healthy host's limit (16 to 7 in bench/outage.mjs), and additive
   * increase took 9 s to climb back.
   */
  resume(): void {
    this.#slowStart = this.#o.slowStart;
    this.#mildlyOver = false;
  }

  onSample(sample: LimitSample): void {
    const now = this.#clock.monotonic();
    if (this.#windowStart === undefined) this.#windowStart = now;
    // The requests still draining from above the probe limit must not close a probe window.
    if (!this.#probing || sample.inflight <= this.#probeAt) this.#count++;
    this.#maxInflight = Math.max(this.#maxInflight, sample.inflight);
    if (sample.dropped) {
      if (!this.#cut) this.#decrease('drop');
    } else if (this.#usable(sample)) {
      this.#latencies.push(Math.max(0, sample.rttMs - Math.max(0, sample.queuedMs ?? sample.lagMs ?? 0)));
    }
    // A probe window closes on its samples alone: it runs the host at a fraction of its
    // throughput, so every millisecond of it is lost work (measured at 50 ms with limit 40:
    // a 1 s probe cost 470 pages, a 20-sample one about 170). Tried in session 8 and taken
    // back: closing the first probe on one round at the initial limit (about 140 ms sooner on
    // a 50 ms host), and slow-start windows on one round at the new limit without the time
    // floor. They overshot the knee more (bench/knee.mjs, K = 32 at 100 ms, the probe change
    // alone: peak limit 8K in 2 runs of 6 instead of 4K in all 6; both, at 20 ms: 166 instead
    // of 92), for ~3% of a 3 s crawl. docs/control-plane.md.
    const elapsed = now - this.#windowStart;
    const closes = this.#probing
      ? this.#count >= this.#o.minWindowSamples
      : this.#slowStart
        ? // Counted in usable samples: right after a doubling most completions started under the
          // old limit and say nothing of the new one. Still closed after windowMs on any samples,
          // so a crawler whose samples are all lagged does not stay in slow start.
          (this.#latencies.length >= this.#o.minWindowSamples && elapsed >= this.#o.slowStartWindowMs) ||
          (this.#count >= this.#o.minWindowSamples && elapsed >= this.#o.windowMs)
        : this.#count >= this.#o.minWindowSamples && elapsed >= this.#o.windowMs;
    if (closes) this.#closeWindow(now);
  }

  #usable(sample: LimitSample): boolean {
    const { rttMs, lagMs = 0, startedAt, inflight } = sample;
    if (!Number.isFinite(rttMs) || rttMs < 0 || Math.max(0, lagMs) > this.#o.maxLagFraction * rttMs) {
      return false;
    }
    if (startedAt !== undefined && startedAt < this.#lastChangeAt) return false;
    // A probe measures the unloaded host: samples that started under a higher limit do not.
    return !this.#probing || inflight <= this.#probeAt;
  }

  #closeWindow(now: number): void {
    const used = this.#maxInflight * 2 >= this.limit;
    // Fewer usable samples than a quarter of a window is noise, not a latency verdict.
    const enough = this.#latencies.length >= Math.max(1, Math.ceil(this.#o.minWindowSamples / 4));
    const latency = enough ? percentile(this.#latencies, this.#o.percentile) : undefined;
    if (this.#probing) {
      if (latency !== undefined) this.#baselineMs = latency;
      const pinnedAt = this.#probeAt;
      this.#probing = false;
      this.#probeAt = this.#probeLimit;
      // The first probe used to be repeated five windows later: run while the crawler was cold
      // (JIT, lazily loaded parsers), it read high. That was the crawler's own delay, which the
      // fetcher's per-response estimate now takes out (first probe 51–53 ms, a warm one 50–51,
      // on a 51 ms server), and the repeat cost ~0.4 s of a 5 s crawl at three requests in
      // flight. Measured without it on a knee at 32: limit 38–40, as with it.
      this.#nextProbeAt = now + this.#probeEveryMs;
      if (this.#slowStart && pinnedAt >= this.#limit && latency !== undefined && used) {
        // The first probe ran at the limit itself: it was a slow-start window under target too.
        this.#grow(2);
      } else if (this.#limit > pinnedAt) {
        this.#emit('probe');
      }
    } else if (!this.#cut) {
      if (latency !== undefined) {
        // In slow start the baseline is the probe's, just measured: windows right after a
        // doubling complete in bursts, and their queue estimate, spread over the busy stretch
        // before the burst, reads low (measured: 32–45 ms at 64–256 in flight on a 51 ms server).
        if (this.#absoluteMs === undefined && !this.#slowStart) this.#updateBaseline(latency);
        const target =
          this.#absoluteMs ??
          Math.max(this.#baselineMs! * this.#ratio, this.#baselineMs! + this.#minMarginMs);
        this.#lastLatencyMs = latency;
        this.#lastTargetMs = target;
        const over = latency > target * (1 + this.#o.tolerance);
        if (over && this.#slowStart && latency < 2 * (this.#baselineMs ?? target) && !this.#mildlyOver) {
          // Slow start ends for good at its first cut, and the limit then needs a window per
          // step: ending it on one noisy window costs seconds (measured: an exit at 16 on a knee
          // at 32 took 20 s to climb back; on a 50 ms site, one window in four or five read
          // 71–118 ms at 32–64 in flight, a stall of the crawler's own process, and cut to
          // 27–47). A doubling that lands at twice the knee doubles the latency: that, and more,
          // ends slow start at once; anything less must show twice.
          this.#mildlyOver = true;
        } else if (over) {
          this.#decrease('latency', target / latency);
        } else if (latency <= target && used) {
          this.#grow(target / latency);
        }
        if (!over) this.#mildlyOver = false;
      }
      // No verdict (samples lagged, or started before the last cut): hold. Growing here is how
      // a CPU-bound crawler used to drift far past the knee: once its own event loop saturates,
      // every sample is discounted, and each window then added `increase` unopposed.
    }
    if (!this.#probing && now >= this.#nextProbeAt && this.#absoluteMs === undefined) {
      this.#probing = true;
      if (this.#limit > this.#probeLimit) this.#emit('probe');
    }
    this.#prevLatencyMs = latency;
    this.#windowStart = now;
    this.#count = 0;
    this.#maxInflight = 0;
    this.#cut = false;
    this.#latencies = [];
  }

  /**
   * Between probes. A window run at no more than the probe limit measured exactly what a probe
   * measures, so it replaces the baseline, up or down: without this, a baseline that fell below
   * the host's real unloaded latency pins the limit at its minimum until the next probe, since
   * even one request at a time is "over target". Otherwise the baseline only falls, and only to
   * the larger of the last two windows: window medians net of the lag discount are noisy, and a
   * running minimum of noisy values drifts below the truth (seen on a real 20 ms server: the
   * baseline sank to 14 ms and the limit collapsed to 1).
   */
  #updateBaseline(latency: number): void {
    if (this.#limit <= this.#probeLimit) {
      this.#baselineMs = latency;
      return;
    }
    const candidate = Math.max(latency, this.#prevLatencyMs ?? Number.POSITIVE_INFINITY);
    this.#baselineMs = Math.min(this.#baselineMs ?? latency, candidate);
  }

  /**
   * Additive increase alone takes a window per step, so a limit left far under the knee (slow
   * start ended on a noisy window, or a cut by a burst of errors) takes many seconds to come
   * back: seen on a 50 ms site, slow start ended at 20 on a knee near 40, and +1 per second
   * lost 40% of a 3,000-page crawl. By Little's law, were the host already at its knee, latency
   * would grow in proportion to concurrency, so limit × target / latency is the largest limit
   * that cannot overshoot the target by more than the knee does: well under target that is a
   * big step, near it +`increase`, the classic additive probe. Capped at `maxGrowthRatio`.
   */
  #grow(targetOverLatency: number): void {
    const proportional = Math.floor(this.#limit * Math.min(this.#o.maxGrowthRatio, targetOverLatency));
    const next = this.#slowStart ? this.#limit * 2 : Math.max(this.#limit + this.#o.increase, proportional);
    this.#set(next, 'increase');
  }

  /**
   * A latency cut goes towards where the latency says the knee is: by Little's law, past the
   * knee latency grows in proportion to concurrency, so limit × target / latency, cutting by
   * at least backoffRatio and at most half (in slow start, half is the last limit that was
   * under target). Far over target, that takes one window where plain ×0.9 steps took four
   * (measured: 64 → 57 → 51 → 45 → 40 on a knee at 32). A drop cuts by backoffRatio, or
   * halves in slow start.
   */
  #decrease(reason: AimdChangeReason, targetOverLatency?: number): void {
    const ratio =
      targetOverLatency !== undefined
        ? Math.max(0.5, Math.min(this.#o.backoffRatio, targetOverLatency))
        : this.#slowStart
          ? 0.5
          : this.#o.backoffRatio;
    this.#slowStart = false;
    this.#cut = true;
    // The limit is an integer, so floor(limit × ratio) < limit: every cut makes progress.
    this.#set(Math.floor(this.#limit * ratio), reason);
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
    for (const listener of this.#listeners) listener(this.limit, reason);
  }
}

/** Nearest-rank percentile of a non-empty list. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[index]!;
}
