import { type Bound, POSITIVE_INT, POSITIVE_MS } from '../bound.js';
import { checkNumber } from '../check.js';

/**
 * The global ceiling of requests in flight, lowered while our own event loop is the
 * bottleneck. A request in flight holds its parser, body stream and callbacks until the loop
 * gets to it; past what the CPU can serve, more of them only queue, and what queues long
 * enough survives two scavenges and is left to full collections (commit
 * 5c66bf4). Per-host limits cannot see this: each polite host has one request in flight.
 *
 * Pure: it turns one window's figures into a limit. The daemon measures the windows
 * (daemon/event-loop-monitor.ts) and HostLimiters enforces the limit.
 */
export interface LoopWindow {
  /** Event-loop utilisation over the window, 0..1 (perf_hooks). */
  readonly elu: number;
  /** Mean event-loop delay over the window beyond the timer's resolution, ms. */
  readonly lagMs: number;
  /** Whether requests in flight reached the limit during the window (work waited for it). */
  readonly reached: boolean;
}

export interface LoopLimitOptions {
  /** Ceiling (concurrency.global). */
  readonly maxLimit: number;
  /** Floor the limit is never cut below. @default 32 */
  readonly minLimit?: number;
  /**
   * Where the limit starts (within the floor and the ceiling); it grows while requests wait
   * for it and the loop has room. @default 128
   */
  readonly initialLimit?: number;
  /**
   * Event-loop delay a saturated loop may run at before the limit is cut, ms; below half of it
   * the limit may grow. @default 20
   */
  readonly targetLagMs?: number;
  /** A window at or above this utilisation is saturated. @default 0.95 */
  readonly saturatedElu?: number;
  /** Largest cut in one window (the cut is target / lag, down to this). @default 0.5 */
  readonly maxCutRatio?: number;
  /** Growth per window while work waits for the limit and the loop has room. @default 1.25 */
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

/** The bounds of each option (the config's concurrency.global, minGlobal and loopLagTargetMs). */
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

/** Checks the options (a config with bad ones must fail at load, not at the first window). */
export function loopLimitSettings(options: LoopLimitOptions): Settings {
  const o = { ...loopLimitDefaults, ...options };
  for (const [option, bound] of Object.entries(LOOP_LIMIT_BOUNDS))
    checkNumber(option, o[option as keyof Settings], bound);
  return o;
}

export class LoopLimit {
  readonly #o: Settings;
  #limit: number;
  readonly #listeners = new Set<(limit: number, reason: 'loop_saturated' | 'loop_room') => void>();

  constructor(options: LoopLimitOptions) {
    this.#o = loopLimitSettings(options);
    this.#limit = Math.min(this.#o.maxLimit, Math.max(this.floor, this.#o.initialLimit));
  }

  get limit(): number {
    return this.#limit;
  }

  /** The floor that applies: minLimit, or the ceiling when that is lower (a fixed ceiling). */
  get floor(): number {
    return Math.min(this.#o.minLimit, this.#o.maxLimit);
  }

  onWindow(w: LoopWindow): void {
    const o = this.#o;
    if (!Number.isFinite(w.elu) || !Number.isFinite(w.lagMs)) return;
    const saturated = w.elu >= o.saturatedElu;
    if (saturated && w.lagMs > o.targetLagMs) {
      // Proportional: a loop four times over its target lag is not cut by a tenth a window.
      const ratio = Math.max(o.maxCutRatio, o.targetLagMs / w.lagMs);
      this.#set(Math.max(this.floor, Math.floor(this.#limit * ratio)), 'loop_saturated');
      return;
    }
    if (w.reached && w.lagMs < o.targetLagMs / 2) {
      this.#set(Math.min(o.maxLimit, Math.ceil(this.#limit * o.growthRatio)), 'loop_room');
    }
  }

  /** Called with the new limit whenever it changes; returns an unsubscribe. */
  onChange(listener: (limit: number, reason: 'loop_saturated' | 'loop_room') => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #set(limit: number, reason: 'loop_saturated' | 'loop_room'): void {
    if (limit === this.#limit) return;
    this.#limit = limit;
    for (const l of this.#listeners) l(limit, reason);
  }
}
