import { type Bound, MS, POSITIVE_INT } from './bound.js';
import { checkNumber, checkOneOf } from './check.js';
import type { Random } from './clock.js';

export interface BackoffOptions {
  /** Delay ceiling of the first retry. @default 1000 */
  readonly baseMs?: number;
  /** Cap on the delay ceiling. @default 300000 */
  readonly maxMs?: number;
  /** Growth of the ceiling per attempt. @default 2 */
  readonly factor?: number;
  /**
   * 'full': uniform in [0, ceiling) (AWS "full jitter": spreads retries of many tasks that
   * failed together); 'equal': ceiling/2 + uniform in [0, ceiling/2); 'none': the ceiling.
   * @default 'full'
   */
  readonly jitter?: 'full' | 'equal' | 'none';
}

export const backoffDefaults = {
  baseMs: 1000,
  maxMs: 300_000,
  factor: 2,
  jitter: 'full',
} as const satisfies Required<BackoffOptions>;

/** The bounds of each option (the config's retry delays are built from them). */
export const BACKOFF_BOUNDS = Object.freeze({
  baseMs: MS,
  maxMs: MS,
  factor: { min: 1 },
} as const satisfies Record<Exclude<keyof BackoffOptions, 'jitter'>, Bound>);

const JITTERS = ['full', 'equal', 'none'] as const;

/** Validates backoff options once (e.g. at config load); backoffDelayMs validates too. */
export function checkBackoffOptions(options: BackoffOptions = {}): Required<BackoffOptions> {
  const o = { ...backoffDefaults, ...options };
  checkNumber('baseMs', o.baseMs, BACKOFF_BOUNDS.baseMs);
  checkNumber('maxMs', o.maxMs, { ...BACKOFF_BOUNDS.maxMs, min: o.baseMs, minOf: 'baseMs' });
  checkNumber('factor', o.factor, BACKOFF_BOUNDS.factor);
  checkOneOf('jitter', o.jitter, JITTERS);
  return o;
}

/**
 * Delay before retry number `attempt` (1 = the first retry):
 * ceiling = min(maxMs, baseMs × factor^(attempt − 1)), then jittered. Whole milliseconds.
 */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: Random): number {
  checkNumber('attempt', attempt, POSITIVE_INT);
  const o = checkBackoffOptions(options);
  // Computed in log space so that a huge attempt number cannot overflow to Infinity × 0.
  const exponent = (attempt - 1) * Math.log(o.factor);
  const ceiling =
    exponent >= Math.log(o.maxMs / Math.max(o.baseMs, 1e-9)) ? o.maxMs : o.baseMs * Math.exp(exponent);
  const r = Math.min(Math.max(random(), 0), 1 - Number.EPSILON);
  switch (o.jitter) {
    case 'full':
      return Math.floor(r * ceiling);
    case 'equal':
      return Math.floor(ceiling / 2 + (r * ceiling) / 2);
    default:
      return Math.round(ceiling);
  }
}
