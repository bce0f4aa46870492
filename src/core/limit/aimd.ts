import { type Bound, POSITIVE_INT, POSITIVE_MS } from '../bound.js';
import { checkNumber, checkOneOf } from '../check.js';
import type { Clock } from '../clock.js';
import { type AimdChangeReason, AimdCore, type AimdSettings, type AimdStats } from './aimd-core.js';
import { WindowedLimit } from './windowed.js';

export type { AimdChangeReason, AimdStats } from './aimd-core.js';
export { percentile } from './windowed.js';

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

/** The bounds of each option (the config's concurrency section is built from them). */
export const AIMD_BOUNDS = Object.freeze({
  initialLimit: POSITIVE_INT,
  minLimit: POSITIVE_INT,
  maxLimit: POSITIVE_INT,
  increase: POSITIVE_INT,
  maxGrowthRatio: { min: 1, max: 2 },
  backoffRatio: { min: 0.5, max: 1, maxExclusive: true },
  windowMs: POSITIVE_MS,
  minWindowSamples: POSITIVE_INT,
  percentile: { min: 0, minExclusive: true, max: 1 },
  tolerance: { min: 0 },
  maxLagFraction: { min: 0, minExclusive: true, max: 1 },
  slowStartWindowMs: POSITIVE_MS,
} as const satisfies Record<string, Bound>);

/** The bounds of the target's options. A relative target at ratio 1 would sit on the baseline itself. */
export const AIMD_TARGET_BOUNDS = Object.freeze({
  latencyMs: POSITIVE_MS,
  ratio: { min: 1, minExclusive: true },
  minMarginMs: { min: 0 },
  minRttWindowMs: POSITIVE_MS,
  probeLimit: POSITIVE_INT,
} as const satisfies Record<string, Bound>);

/**
 * Checked settings by the options object they came from: a crawl makes one limit per host from
 * the same options, and checking and unpacking them again cost ~12–40 µs a host (read-only:
 * AimdCore and WindowedLimit never write to them).
 */
const settingsByOptions = new WeakMap<AimdOptions, { o: Required<AimdOptions>; settings: AimdSettings }>();

/**
 * The adaptive per-host concurrency limit: additive-increase / multiplicative-decrease on
 * latency and drops (AimdCore), decided once per window (WindowedLimit), as Netflix
 * concurrency-limits composes `WindowedLimit(AIMDLimit)`. Queueing shows up as latency before
 * it shows up as errors, so the limit finds a host's capacity without overloading it into
 * errors. docs/control-plane.md describes the rules and the measurements behind them.
 */
export class AimdLimit extends WindowedLimit {
  readonly #core: AimdCore;

  /**
   * `start`: the limit after the first probe instead of initialLimit (AimdCore: a hint from the
   * other daemons), within [initialLimit, maxLimit].
   * @throws InvalidArgumentError naming the first option out of its bounds.
   */
  constructor(options: AimdOptions = {}, clock: Clock, start?: number) {
    let s = settingsByOptions.get(options);
    if (s === undefined) {
      const o = { ...aimdDefaults, ...options };
      s = { o, settings: aimdSettings(o) };
      settingsByOptions.set(options, s);
    }
    const core = new AimdCore(s.settings, clock, start);
    super(core, s.o, clock);
    this.#core = core;
  }

  stats(): AimdStats {
    return this.#core.stats();
  }

  override onChange(listener: (limit: number, reason: AimdChangeReason) => void): () => void {
    return this.#core.onChange(listener);
  }
}

/** The options checked against their bounds (the config check runs this too), the target unpacked. */
function aimdSettings(o: Required<AimdOptions>): AimdSettings {
  const b = AIMD_BOUNDS;
  checkNumber('maxLimit', o.maxLimit, b.maxLimit);
  checkNumber('minLimit', o.minLimit, { ...b.minLimit, max: o.maxLimit, maxOf: 'maxLimit' });
  checkNumber('initialLimit', o.initialLimit, {
    ...b.initialLimit,
    min: o.minLimit,
    minOf: 'minLimit',
    max: o.maxLimit,
    maxOf: 'maxLimit',
  });
  checkNumber('increase', o.increase, b.increase);
  checkNumber('maxGrowthRatio', o.maxGrowthRatio, b.maxGrowthRatio);
  checkNumber('backoffRatio', o.backoffRatio, b.backoffRatio);
  checkNumber('windowMs', o.windowMs, b.windowMs);
  checkNumber('slowStartWindowMs', o.slowStartWindowMs, b.slowStartWindowMs);
  checkNumber('minWindowSamples', o.minWindowSamples, b.minWindowSamples);
  checkNumber('percentile', o.percentile, b.percentile);
  checkNumber('tolerance', o.tolerance, b.tolerance);
  checkNumber('maxLagFraction', o.maxLagFraction, b.maxLagFraction);
  const t = o.target;
  const tb = AIMD_TARGET_BOUNDS;
  checkOneOf('target.kind', t.kind, ['absolute', 'relative']);
  if (t.kind === 'absolute') {
    const absoluteMs = checkNumber('target.latencyMs', t.latencyMs, tb.latencyMs);
    return {
      ...o,
      absoluteMs,
      ratio: 1,
      minMarginMs: 0,
      probeEveryMs: Number.POSITIVE_INFINITY,
      probeLimit: o.minLimit,
    };
  }
  const d = aimdDefaults.target;
  return {
    ...o,
    absoluteMs: undefined,
    ratio: checkNumber('target.ratio', t.ratio ?? d.ratio, tb.ratio),
    minMarginMs: checkNumber('target.minMarginMs', t.minMarginMs ?? d.minMarginMs, tb.minMarginMs),
    probeEveryMs: checkNumber(
      'target.minRttWindowMs',
      t.minRttWindowMs ?? d.minRttWindowMs,
      tb.minRttWindowMs,
    ),
    probeLimit: checkNumber('target.probeLimit', t.probeLimit ?? d.probeLimit, tb.probeLimit),
  };
}
