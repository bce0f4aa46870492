import { MAX_TIMER_MS } from './clock.js';

/**
 * The bounds of a number option, written once in the option table of the algorithm that takes
 * it (AIMD_BOUNDS, BREAKER_BOUNDS, ...): the algorithm's validator checks against the table
 * (core/check.ts) and the config's zod schema is built from it (config/units.ts `numberIn`).
 */
export interface Bound {
  /** Inclusive lower bound unless `minExclusive`. */
  readonly min?: number;
  readonly minExclusive?: boolean;
  /** Inclusive upper bound unless `maxExclusive`. */
  readonly max?: number;
  readonly maxExclusive?: boolean;
  readonly integer?: boolean;
  /** The option whose value `min` is, when another option sets it (`maxMs` >= `baseMs`). */
  readonly minOf?: string;
  /** The option whose value `max` is (`initialPauseMs` <= `maxPauseMs`). */
  readonly maxOf?: string;
}

/** A count: an integer >= 1. */
export const POSITIVE_INT: Bound = Object.freeze({ min: 1, integer: true });
/** A count that may be 0. */
export const NON_NEGATIVE_INT: Bound = Object.freeze({ min: 0, integer: true });
/**
 * A duration in whole milliseconds that may become a timer: at most Node's largest timer
 * (2^31-1 ms, 24.8 days), past which setTimeout fires after 1 ms instead.
 */
export const MS: Bound = Object.freeze({ min: 0, max: MAX_TIMER_MS, integer: true });
/** A duration of at least 1 ms. */
export const POSITIVE_MS: Bound = Object.freeze({ min: 1, max: MAX_TIMER_MS, integer: true });

/** Whether `value` is a number within `b`. */
export function inBound(value: unknown, b: Bound): value is number {
  const { min, max, minExclusive = false, maxExclusive = false, integer = false } = b;
  return (
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || max === Number.POSITIVE_INFINITY) &&
    (!integer || Number.isInteger(value)) &&
    (min === undefined || (minExclusive ? value > min : value >= min)) &&
    (max === undefined || (maxExclusive ? value < max : value <= max))
  );
}

/**
 * The bound in words: "an integer in [1, 5]", "a finite number > 0", "a finite number <=
 * `maxPauseMs` (5000)". `name` spells an option that sets a bound (minOf, maxOf): the
 * algorithm's own name by default, the config path in the config's messages.
 */
export function describeBound(b: Bound, name: (option: string) => string = (o) => `\`${o}\``): string {
  const { min, max, minExclusive, maxExclusive, integer, minOf, maxOf } = b;
  const kind = integer ? 'an integer' : 'a finite number';
  const end = (v: number, of: string | undefined) => (of === undefined ? String(v) : `${name(of)} (${v})`);
  if (min !== undefined && max !== undefined && max !== Number.POSITIVE_INFINITY) {
    return `${kind} in ${minExclusive ? '(' : '['}${end(min, minOf)}, ${end(max, maxOf)}${maxExclusive ? ')' : ']'}`;
  }
  if (min !== undefined) return `${kind} ${minExclusive ? '>' : '>='} ${end(min, minOf)}`;
  if (max !== undefined) return `${kind} ${maxExclusive ? '<' : '<='} ${end(max, maxOf)}`;
  return kind;
}

/** A received value as messages show it: strings quoted, objects as JSON. */
export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
