import { InvalidArgumentError } from './errors.js';

/**
 * Option validation shared by the control-plane algorithms. Messages name the option and show
 * the value received, like p-queue: "Expected `backoffRatio` to be in [0.5, 1), got 2".
 */
export interface Range {
  /** Inclusive lower bound unless `minExclusive`. */
  readonly min?: number;
  readonly minExclusive?: boolean;
  /** Inclusive upper bound unless `maxExclusive`. */
  readonly max?: number;
  readonly maxExclusive?: boolean;
  readonly integer?: boolean;
}

export function checkNumber(name: string, value: unknown, range: Range = {}): number {
  const { min, max, minExclusive = false, maxExclusive = false, integer = false } = range;
  const ok =
    typeof value === 'number' &&
    !Number.isNaN(value) &&
    (Number.isFinite(value) || max === Number.POSITIVE_INFINITY) &&
    (!integer || Number.isInteger(value)) &&
    (min === undefined || (minExclusive ? value > min : value >= min)) &&
    (max === undefined || (maxExclusive ? value < max : value <= max));
  if (ok) return value;
  throw new InvalidArgumentError(`Expected \`${name}\` to be ${describe(range)}, got ${show(value)}`);
}

function describe({ min, max, minExclusive, maxExclusive, integer }: Range): string {
  const kind = integer ? 'an integer' : 'a finite number';
  if (min !== undefined && max !== undefined && max !== Number.POSITIVE_INFINITY) {
    return `${kind} in ${minExclusive ? '(' : '['}${min}, ${max}${maxExclusive ? ')' : ']'}`;
  }
  if (min !== undefined) return `${kind} ${minExclusive ? '>' : '>='} ${min}`;
  if (max !== undefined) return `${kind} ${maxExclusive ? '<' : '<='} ${max}`;
  return kind;
}

function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value == null) return String(value);
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}

/** Throws when `a` > `b`, naming both options. */
export function checkOrder(aName: string, a: number, bName: string, b: number): void {
  if (a > b) {
    throw new InvalidArgumentError(`Expected \`${aName}\` (${a}) to be <= \`${bName}\` (${b})`);
  }
}
