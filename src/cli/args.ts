import { type ParseArgsConfig, parseArgs } from 'node:util';
import { InvalidArgumentError } from '../core/errors.js';

/** Usage errors exit 2 like config errors: the operator typed something wrong. */
export class UsageError extends InvalidArgumentError {
  override readonly code: string = 'CRAWLD_ERR_USAGE';
}

export function parse(argv: string[], options: NonNullable<ParseArgsConfig['options']>) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

export function intOpt(
  value: unknown,
  name: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UsageError(`--${name}: expected an integer in [${min}, ${max}], got '${String(value)}'`);
  }
  return n;
}

export function numOpt(value: unknown, name: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max) {
    throw new UsageError(`--${name}: expected a number in [${min}, ${max}], got '${String(value)}'`);
  }
  return n;
}

export function strOpt(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
