import { type Bound, describeBound, inBound, showValue } from './bound.js';
import { InvalidArgumentError } from './errors.js';

/**
 * Option validation shared by the algorithms. A refusal is an InvalidArgumentError that
 * carries the option's name, the value and the bound it broke (the config check maps those to
 * the field, never the message); the message says the same for a person, like p-queue's:
 * "Expected `backoffRatio` to be a finite number in [0.5, 1), got 2".
 */

/** Returns `value` when it lies within `bound` (an entry of the algorithm's option table). */
export function checkNumber(option: string, value: unknown, bound: Bound = {}): number {
  if (inBound(value, bound)) return value;
  throw new InvalidArgumentError(
    `Expected \`${option}\` to be ${describeBound(bound)}, got ${showValue(value)}`,
    {
      problem: { option, value, bound },
    },
  );
}

/** Returns `value` when it is one of `values`. */
export function checkOneOf<T extends string>(option: string, value: unknown, values: readonly T[]): T {
  if (values.includes(value as T)) return value as T;
  const list = values.map((v) => `'${v}'`);
  const words = list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : list.join('');
  throw new InvalidArgumentError(`Expected \`${option}\` to be ${words}, got ${showValue(value)}`, {
    problem: { option, value, oneOf: values },
  });
}
