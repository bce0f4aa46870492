import { type Bound, MS, POSITIVE_INT } from './bound.js';
import { checkNumber, checkOneOf } from './check.js';
import type { Random } from './clock.js';

export interface BackoffOptions {
  /** @default 1000 */
  readonly baseMs?: number;
  /** @default 300000 */
  readonly maxMs?: number;
  /** @default 2 */
  readonly factor?: number;
  /** 'full' (AWS full jitter) spreads retries of tasks that failed together. @default 'full' */
  readonly jitter?: 'full' | 'equal' | 'none';
}

export const backoffDefaults = {
  baseMs: 1000,
  maxMs: 300_000,
  factor: 2,
  jitter: 'full',
} as const satisfies Required<BackoffOptions>;

export const BACKOFF_BOUNDS = Object.freeze({
  baseMs: MS,
  maxMs: MS,
  factor: { min: 1 },
} as const satisfies Record<Exclude<keyof BackoffOptions, 'jitter'>, Bound>);

const JITTERS = ['full', 'equal', 'none'] as const;

export function checkBackoffOptions(options: BackoffOptions = {}): Required<BackoffOptions> {
  const o = { ...backoffDefaults, ...options };
  checkNumber('baseMs', o.baseMs, BACKOFF_BOUNDS.baseMs);
  checkNumber('maxMs', o.maxMs, { ...BACKOFF_BOUNDS.maxMs, min: o.baseMs, minOf: 'baseMs' });
  checkNumber('factor', o.factor, BACKOFF_BOUNDS.factor);
  checkOneOf('jitter', o.jitter, JITTERS);
  return o;
}

/** Delay before retry `attempt` (1 = first): min(maxMs, baseMs × factor^(attempt − 1)), jittered. */
export function backoffDelayMs(attempt: number, options: BackoffOptions, random: Random): number {
  checkNumber('attempt', attempt, POSITIVE_INT);
  const o = checkBackoffOptions(options);
  // Log space: a huge attempt number cannot overflow to Infinity × 0.
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
