import { type Bound, POSITIVE_INT, POSITIVE_MS } from '../bound.js';
import { checkNumber, checkOneOf } from '../check.js';
import type { Clock } from '../clock.js';
import { type AimdChangeReason, AimdCore, type AimdSettings, type AimdStats } from './aimd-core.js';
import { WindowedLimit } from './windowed.js';

export type { AimdChangeReason, AimdStats } from './aimd-core.js';
export { percentile } from './windowed.js';

/** `relative`: the window percentile stays under `ratio` × a baseline probed at pinned concurrency every minRttWindowMs. */
export type AimdTarget =
  | { readonly kind: 'absolute'; readonly latencyMs: number }
  | {
      readonly kind: 'relative';
      /** @default 1.15 */
      readonly ratio?: number;
      /** Our own per-response queueing is a large share of a fast host's latency. @default 10 */
      readonly minMarginMs?: number;
      /** @default 60000 */
      readonly minRttWindowMs?: number;
      /** @default 3 */
      readonly probeLimit?: number;
    };

export interface AimdOptions {
  /** @default 8 */
  readonly initialLimit?: number;
  /** @default 1 */
  readonly minLimit?: number;
  /** @default 256 */
  readonly maxLimit?: number;
  /** @default 1 */
  readonly increase?: number;
  /** Cap on one step of growth toward limit × target / latency. @default 1.25 */
  readonly maxGrowthRatio?: number;
  /** @default 0.9 */
  readonly backoffRatio?: number;
  /** @default 1000 */
  readonly windowMs?: number;
  /** @default 20 */
  readonly minWindowSamples?: number;
  /** @default 0.5 */
  readonly percentile?: number;
  /** @default { kind: 'relative', ratio: 1.15, minMarginMs: 10, minRttWindowMs: 60000, probeLimit: 3 } */
  readonly target?: AimdTarget;
  /** Dead band above target, so noise does not make the limit saw. @default 0.05 */
  readonly tolerance?: number;
  /** Such a sample measured the crawler, not the server. @default 0.5 */
  readonly maxLagFraction?: number;
  /** TCP's slow start until the first cut. @default true */
  readonly slowStart?: boolean;
  /** A new host's limit is found in well under a second. @default 100 */
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

/** A ratio of 1 would sit on the baseline itself. */
export const AIMD_TARGET_BOUNDS = Object.freeze({
  latencyMs: POSITIVE_MS,
  ratio: { min: 1, minExclusive: true },
  minMarginMs: { min: 0 },
  minRttWindowMs: POSITIVE_MS,
  probeLimit: POSITIVE_INT,
} as const satisfies Record<string, Bound>);

/** A crawl makes one limit per host from the same options: check and unpack them once (read-only). */
const settingsByOptions = new WeakMap<AimdOptions, { o: Required<AimdOptions>; settings: AimdSettings }>();

/** Netflix's WindowedLimit(AIMDLimit): queueing shows as latency before errors, so the limit finds capacity gently. */
export class AimdLimit extends WindowedLimit {
  readonly #core: AimdCore;

  /** @throws InvalidArgumentError naming the first option out of its bounds. */
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
