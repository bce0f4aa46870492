import { MAX_TIMER_MS } from './clock.js';

/** A number option's bounds, written once in its algorithm's option table; config/units.ts numberIn reads it. */
export interface Bound {
  readonly min?: number;
  readonly minExclusive?: boolean;
  readonly max?: number;
  readonly maxExclusive?: boolean;
  readonly integer?: boolean;
  /** The option whose value `min` is (`maxMs` >= `baseMs`). */
  readonly minOf?: string;
  readonly maxOf?: string;
}

export const POSITIVE_INT: Bound = Object.freeze({ min: 1, integer: true });
export const NON_NEGATIVE_INT: Bound = Object.freeze({ min: 0, integer: true });
/** Whole ms up to Node's largest timer: past it setTimeout fires after 1 ms. */
export const MS: Bound = Object.freeze({ min: 0, max: MAX_TIMER_MS, integer: true });
export const POSITIVE_MS: Bound = Object.freeze({ min: 1, max: MAX_TIMER_MS, integer: true });

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

/** The bound in words ("an integer in [1, 5]"); `name` spells an option that sets an end. */
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

export function showValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
