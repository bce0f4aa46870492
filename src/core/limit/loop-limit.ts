import { type Bound, POSITIVE_INT, POSITIVE_MS } from '../bound.js';
import { checkNumber } from '../check.js';
import { Listeners } from '../listeners.js';

/** The global ceiling, lowered while our own event loop is the bottleneck (per-host limits cannot see it); measured by daemon/event-loop-monitor.ts. */
export interface LoopWindow {
  readonly elu: number;
  readonly lagMs: number;
  readonly reached: boolean;
}

export interface LoopLimitOptions {
  readonly maxLimit: number;
  /** @default 32 */
  readonly minLimit?: number;
  /** @default 128 */
  readonly initialLimit?: number;
  /** Lag a saturated loop may run at before a cut; below half of it the limit may grow. @default 20 */
  readonly targetLagMs?: number;
  /** @default 0.95 */
  readonly saturatedElu?: number;
  /** @default 0.5 */
  readonly maxCutRatio?: number;
  /** @default 1.25 */
  readonly growthRatio?: number;
}

export const loopLimitDefaults = {
  minLimit: 32,
  initialLimit: 128,
  targetLagMs: 20,
  saturatedElu: 0.95,
  maxCutRatio: 0.5,
  growthRatio: 1.25,
} as const satisfies Omit<Required<LoopLimitOptions>, 'maxLimit'>;

export const LOOP_LIMIT_BOUNDS = Object.freeze({
  maxLimit: POSITIVE_INT,
  minLimit: POSITIVE_INT,
  initialLimit: POSITIVE_INT,
  targetLagMs: POSITIVE_MS,
  saturatedElu: { min: 0, minExclusive: true, max: 1 },
  maxCutRatio: { min: 0, minExclusive: true, max: 1, maxExclusive: true },
  growthRatio: { min: 1, minExclusive: true, max: 4 },
} as const satisfies Record<keyof LoopLimitOptions, Bound>);

type Settings = Required<LoopLimitOptions>;

/** A config with bad options must fail at load, not at the first window. */
export function loopLimitSettings(options: LoopLimitOptions): Settings {
  const o = { ...loopLimitDefaults, ...options };
  for (const [option, bound] of Object.entries(LOOP_LIMIT_BOUNDS))
    checkNumber(option, o[option as keyof Settings], bound);
  return o;
}

export class LoopLimit {
  readonly #o: Settings;
  #limit: number;
  readonly #listeners = new Listeners<[number, 'loop_saturated' | 'loop_room']>('limitChange');

  constructor(options: LoopLimitOptions) {
    this.#o = loopLimitSettings(options);
    this.#limit = Math.min(this.#o.maxLimit, Math.max(this.floor, this.#o.initialLimit));
  }

  get limit(): number {
    return this.#limit;
  }

  get floor(): number {
    return Math.min(this.#o.minLimit, this.#o.maxLimit);
  }

  onWindow(w: LoopWindow): void {
    const o = this.#o;
    if (!Number.isFinite(w.elu) || !Number.isFinite(w.lagMs)) return;
    const saturated = w.elu >= o.saturatedElu;
    if (saturated && w.lagMs > o.targetLagMs) {
      // Proportional: a loop four times over target is not cut by a tenth a window.
      const ratio = Math.max(o.maxCutRatio, o.targetLagMs / w.lagMs);
      this.#set(Math.max(this.floor, Math.floor(this.#limit * ratio)), 'loop_saturated');
      return;
    }
    if (w.reached && w.lagMs < o.targetLagMs / 2) {
      this.#set(Math.min(o.maxLimit, Math.ceil(this.#limit * o.growthRatio)), 'loop_room');
    }
  }

  onChange(listener: (limit: number, reason: 'loop_saturated' | 'loop_room') => void): () => void {
    return this.#listeners.add(listener);
  }

  #set(limit: number, reason: 'loop_saturated' | 'loop_room'): void {
    if (limit === this.#limit) return;
    this.#limit = limit;
    this.#listeners.emit(limit, reason);
  }
}
