import { type ParseArgsConfig, parseArgs } from 'node:util';
import { isPostgresUrl, isRedisUrl, parseRedisClusterUrl } from '../config/predicates.js';
import { UsageError } from '../core/errors.js';
import type { CommandSpec } from './command-table.js';

/** The command's arguments, by its flags in the command table (the ones its usage lists). */
export function parse(argv: string[], spec: CommandSpec) {
  const options: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, flag] of Object.entries(spec.flags)) {
    options[name] = { type: flag.type, ...(flag.multiple ? { multiple: true } : {}) };
  }
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${(err as Error).message} (crawld ${spec.name} --help lists its flags)`);
  }
}

/**
 * Whether the arguments ask for the command's usage: `--help` or `-h` anywhere before a `--`.
 * A flag's value cannot be either: the parser refuses a value that starts with '-'.
 */
export function asksHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
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

/** A shared frontier named on the command line. */
export type SharedFrontierOpt =
  | { readonly kind: 'redis'; readonly url: string }
  | { readonly kind: 'redis-cluster'; readonly nodes: string[] };

/**
 * --frontier: a shared Redis frontier, redis://HOST:PORT/DB (or rediss://), or a Redis
 * Cluster, redis-cluster://HOST:PORT,HOST:PORT,... (start-up nodes; any reachable one will do).
 */
export function frontierOpt(value: unknown, name = 'frontier'): SharedFrontierOpt | undefined {
  if (value === undefined) return undefined;
  const url = String(value);
  if (isRedisUrl(url)) return { kind: 'redis', url };
  const nodes = parseRedisClusterUrl(url);
  if (nodes) return { kind: 'redis-cluster', nodes };
  throw new UsageError(
    `--${name}: expected redis://HOST:PORT/DB or redis-cluster://HOST:PORT,HOST:PORT,..., got '${url}'`,
  );
}

/** --sink (repeatable): result sinks added to the config's, postgres://USER@HOST:PORT/DB for now. */
export function sinkUrlsOpt(value: unknown): string[] {
  const list = value === undefined ? [] : Array.isArray(value) ? value.map(String) : [String(value)];
  for (const url of list) {
    if (!isPostgresUrl(url)) {
      // Only the scheme is echoed: the URL may hold a password.
      throw new UsageError(
        `--sink: expected postgres://USER@HOST:PORT/DB, got a '${url.split(':', 1)[0]}:' URL`,
      );
    }
  }
  return list;
}
