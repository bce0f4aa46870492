import { type Bound, describeBound, inBound, showValue } from './bound.js';
import { InvalidArgumentError } from './errors.js';

/** Option validation: an InvalidArgumentError carries option, value and bound, so the config names the field. */

export function checkNumber(option: string, value: unknown, bound: Bound = {}): number {
  if (inBound(value, bound)) return value;
  throw new InvalidArgumentError(
    `Expected \`${option}\` to be ${describeBound(bound)}, got ${showValue(value)}`,
    {
      problem: { option, value, bound },
    },
  );
}

export function checkOneOf<T extends string>(option: string, value: unknown, values: readonly T[]): T {
  if (values.includes(value as T)) return value as T;
  const list = values.map((v) => `'${v}'`);
  const words = list.length > 1 ? `${list.slice(0, -1).join(', ')} or ${list.at(-1)}` : list.join('');
  throw new InvalidArgumentError(`Expected \`${option}\` to be ${words}, got ${showValue(value)}`, {
    problem: { option, value, oneOf: values },
  });
}
