import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { formatPath, validateConfig } from '../../src/config/config.js';
import { configSchema } from '../../src/config/config-schema.js';
import type { Bound as TableBound } from '../../src/core/bound.js';
import { BREAKER_BOUNDS } from '../../src/core/breaker-policy.js';
import { COOKIE_LIMIT_BOUNDS } from '../../src/core/cookie-limits.js';
import { ConfigError } from '../../src/core/errors.js';
import { FETCH_LIMIT_BOUNDS } from '../../src/core/fetch-limits.js';
import { HEDGE_BOUNDS } from '../../src/core/hedge.js';
import { HOST_BACKOFF_BOUNDS } from '../../src/core/host-backoff.js';
import { ADAPTIVE_TIMEOUT_BOUNDS } from '../../src/core/host-timeout.js';
import { AIMD_BOUNDS, AIMD_TARGET_BOUNDS } from '../../src/core/limit/aimd.js';
import { LOOP_LIMIT_BOUNDS } from '../../src/core/limit/loop-limit.js';
import { TOKEN_BUCKET_BOUNDS } from '../../src/core/token-bucket.js';
import { createDaemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/observe/logger.js';
import { runCli } from '../helpers/cli.js';
import { docConfig } from '../helpers/config-doc.js';

/**
 * One source of truth for bounds: every numeric option of docs/config.md, at and past the
 * bounds its schema declares, goes through the config check and, when accepted, through a real
 * start of the daemon. Whatever check-config accepts must start; whatever it refuses must be
 * refused naming the option. The bounds are read from the schema, so a new option is covered.
 */

type Path = (string | number)[];
type Schema = z.core.$ZodType;

/** Every numeric leaf of the example, with its path. */
function numericLeaves(value: unknown, at: Path = []): Path[] {
  if (typeof value === 'number') return [at];
  if (Array.isArray(value)) return value.flatMap((v, i) => numericLeaves(v, [...at, i]));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => numericLeaves(v, [...at, k]));
  return [];
}

function def(s: Schema): Record<string, unknown> & { type: string } {
  return s._zod.def as unknown as Record<string, unknown> & { type: string };
}

/** The schema node that parses the value at `path` of `sample`. */
function nodeAt(schema: Schema, path: Path, sample: unknown): Schema {
  let s = schema;
  for (;;) {
    const d = def(s);
    if (['default', 'prefault', 'optional', 'nullable', 'readonly', 'catch'].includes(d.type)) {
      s = d.innerType as Schema;
    } else if (d.type === 'pipe') {
      // A preprocess is a pipe from a transform to the schema that parses the result.
      const input = d.in as Schema;
      s = def(input).type === 'transform' ? (d.out as Schema) : input;
    } else if (d.type === 'union') {
      const options = d.options as Schema[];
      s = options.find((o) => (o as z.ZodType).safeParse(sample).success) ?? options[0]!;
    } else if (path.length === 0) {
      return s;
    } else if (d.type === 'object') {
      const [key, ...rest] = path;
      s = (d.shape as Record<string, Schema>)[key as string]!;
      sample = (sample as Record<string, unknown>)[key as string];
      path = rest;
    } else if (d.type === 'array') {
      const [key, ...rest] = path;
      s = d.element as Schema;
      sample = (sample as unknown[])[key as number];
      path = rest;
    } else {
      throw new Error(`cannot walk ${d.type} at ${path.join('.')}`);
    }
  }
}

interface Bound {
  readonly value: number;
  readonly inclusive: boolean;
}
interface Bounds {
  readonly min?: Bound;
  readonly max?: Bound;
  readonly integer: boolean;
}

function boundsOf(s: Schema): Bounds {
  const d = def(s);
  if (d.type !== 'number') throw new Error(`not a number schema: ${d.type}`);
  let min: Bound | undefined;
  let max: Bound | undefined;
  let integer = false;
  for (const c of (d.checks ?? []) as Schema[]) {
    const cd = def(c) as unknown as { check: string; value: number; inclusive: boolean; format?: string };
    if (cd.check === 'greater_than') min = { value: cd.value, inclusive: cd.inclusive };
    if (cd.check === 'less_than') max = { value: cd.value, inclusive: cd.inclusive };
    if (cd.check === 'number_format' && (cd.format === 'safeint' || cd.format === 'int32')) integer = true;
  }
  return { ...(min ? { min } : {}), ...(max ? { max } : {}), integer };
}

/** Values at the bounds (accepted by the schema) and past them (refused). */
function probes({ min, max, integer }: Bounds, current: number): { at: number[]; past: number[] } {
  const step = integer ? 1 : 0.001;
  const at: number[] = [current];
  const past: number[] = [];
  if (min) {
    at.push(min.inclusive ? min.value : min.value + step);
    past.push(min.inclusive ? min.value - step : min.value);
  }
  if (max) {
    at.push(max.inclusive ? max.value : max.value - step);
    past.push(max.inclusive ? max.value + step : max.value);
  } else {
    // No upper bound: a very large value must still either start or be refused by name.
    at.push(integer ? 2 ** 31 : 1e9);
  }
  if (integer) past.push(current + 0.5);
  return { at: [...new Set(at)], past };
}

function literal(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function withValue(config: unknown, path: Path, value: number): Record<string, unknown> {
  const copy = structuredClone(config) as Record<string, unknown>;
  let o = copy as Record<string | number, unknown>;
  for (const k of path.slice(0, -1)) o = o[k] as Record<string | number, unknown>;
  o[path.at(-1)!] = value;
  return copy;
}

/**
 * The example as a daemon can start it here: no PostgreSQL sink, no webhook change sink
 * (they open connections), sinks in a temporary data dir.
 */
function startable(config: Record<string, unknown>, dataDir: string): Record<string, unknown> {
  const keepJsonl = (list: unknown) =>
    (list as { kind: string }[])
      .filter((s) => s.kind === 'jsonl')
      .map((s) => ({ ...s, path: join(dataDir, `${Math.random()}.jsonl`) }));
  return {
    ...config,
    dataDir,
    frontier: { ...(config.frontier as object), path: join(dataDir, 'frontier.db') },
    sinks: keepJsonl(config.sinks),
    changeSinks: keepJsonl(config.changeSinks),
  };
}

/** Options checked by another process or resource at start, not by a daemon alone. */
const NOT_STARTED = /^(sinks\[1\]|changeSinks\[1\])/;

const base = docConfig();
const cases = numericLeaves(base).map((path) => {
  const current = path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], base) as number;
  return { path, name: formatPath(path), current, bounds: boundsOf(nodeAt(configSchema, path, base)) };
});
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const logger = createLogger({ level: 'error', instanceId: 'bounds', silent: true });

function refusal(config: unknown): string | undefined {
  try {
    validateConfig(config);
    return undefined;
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
}

describe('every numeric option of docs/config.md, at and past its bounds', () => {
  it('covers the options the control plane validates', () => {
    const names = cases.map((c) => c.name);
    for (const n of [
      'concurrency.increase',
      'concurrency.maxLagFraction',
      'hostBackoff.initialPauseMs',
      'breaker.rollingBuckets',
    ])
      expect(names).toContain(n);
    expect(cases.length).toBeGreaterThan(60);
  });

  it("takes the bounds of the algorithms' options from their tables", () => {
    const tables: [string, TableBound][] = [
      ['concurrency.target.ratio', AIMD_TARGET_BOUNDS.ratio],
      ['concurrency.increase', AIMD_BOUNDS.increase],
      ['concurrency.maxLagFraction', AIMD_BOUNDS.maxLagFraction],
      ['concurrency.windowMs', AIMD_BOUNDS.windowMs],
      ['concurrency.loopLagTargetMs', LOOP_LIMIT_BOUNDS.targetLagMs],
      ['breaker.errorThresholdPercentage', BREAKER_BOUNDS.errorThresholdPercentage],
      ['breaker.volumeThreshold', BREAKER_BOUNDS.volumeThreshold],
      ['hostBackoff.initialPauseMs', HOST_BACKOFF_BOUNDS.initialPauseMs],
      ['rateLimits.global.burst', TOKEN_BUCKET_BOUNDS.burst],
      ['jobs[0].cookies.maxTotal', COOKIE_LIMIT_BOUNDS.maxTotal],
      ['fetch.totalTimeoutMs', FETCH_LIMIT_BOUNDS.totalTimeoutMs],
      ['fetch.maxRedirects', FETCH_LIMIT_BOUNDS.maxRedirects],
      ['fetch.adaptiveTimeout.floorMs', ADAPTIVE_TIMEOUT_BOUNDS.floorMs],
      ['fetch.adaptiveTimeout.factor', ADAPTIVE_TIMEOUT_BOUNDS.factor],
      ['fetch.adaptiveTimeout.minRatio', ADAPTIVE_TIMEOUT_BOUNDS.minRatio],
      ['fetch.adaptiveTimeout.minSamples', ADAPTIVE_TIMEOUT_BOUNDS.minSamples],
      ['fetch.hedge.delayRatio', HEDGE_BOUNDS.delayRatio],
      ['fetch.hedge.maxPercent', HEDGE_BOUNDS.maxPercent],
    ];
    for (const [name, b] of tables) {
      const found = cases.find((c) => c.name === name);
      expect(found, name).toBeDefined();
      expect(found?.bounds, name).toEqual({
        ...(b.min !== undefined ? { min: { value: b.min, inclusive: !b.minExclusive } } : {}),
        ...(b.max !== undefined ? { max: { value: b.max, inclusive: !b.maxExclusive } } : {}),
        integer: b.integer === true,
      });
    }
  });

  it.each(cases)('$name', async ({ path, name, current, bounds }) => {
    const { at, past } = probes(bounds, current);
    for (const v of past) {
      const message = refusal(withValue(base, path, v));
      expect(message, `${name} = ${v} was accepted`).toBeDefined();
      // Every bound is said one way, whether zod or an algorithm's validator refused the value.
      expect(message).toMatch(
        new RegExp(`${literal(name)}: must be an? (integer|finite number)\\b.*, got ${literal(String(v))}`),
      );
    }
    let accepted = 0;
    for (const v of at) {
      const config = withValue(base, path, v);
      const message = refusal(config);
      if (message !== undefined) {
        // A cross-field rule may refuse a value at the option's own bound; it must name the option.
        expect(message, `${name} = ${v}`).toContain(name.split('.')[0]);
        continue;
      }
      accepted++;
      if (NOT_STARTED.test(name)) continue;
      const dataDir = mkdtempSync(join(tmpdir(), 'crawld-bounds-'));
      dirs.push(dataDir);
      const warnings: string[] = [];
      const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
      process.on('warning', onWarning);
      try {
        const daemon = await createDaemon(validateConfig(startable(config, dataDir)), { once: true, logger });
        await daemon.stop();
        // A duration past 2^31-1 ms makes Node fire the timer after 1 ms instead (and warn).
        await new Promise((r) => setImmediate(r));
      } finally {
        process.off('warning', onWarning);
      }
      expect(warnings, `${name} = ${v}`).toEqual([]);
    }
    expect(accepted, `${name}: no value accepted`).toBeGreaterThan(0);
  });

  it('check-config, as a user runs it, refuses what the algorithms refuse, naming the field', async () => {
    const cases = [
      ['concurrency: { increase: 0.5 }\n', 'concurrency.increase'],
      ['concurrency: { maxLagFraction: 2 }\n', 'concurrency.maxLagFraction'],
      ['hostBackoff: { initialPauseMs: 10000, maxPauseMs: 5000 }\n', 'hostBackoff.initialPauseMs'],
      ['breaker: { rollingWindowMs: 5, rollingBuckets: 10 }\n', 'breaker.rollingBuckets'],
      ['fetch: { adaptiveTimeout: { factor: 0.5 } }\n', 'fetch.adaptiveTimeout.factor'],
      ['fetch: { adaptiveTimeout: { floorMs: 0 } }\n', 'fetch.adaptiveTimeout.floorMs'],
      ['fetch: { hedge: { maxPercent: 0 } }\n', 'fetch.hedge.maxPercent'],
    ] as const;
    // The processes run side by side: each is a CLI start-up, about a second on a busy machine.
    const runs = await Promise.all(
      cases.map(([yaml]) => {
        const dir = mkdtempSync(join(tmpdir(), 'crawld-bounds-cli-'));
        dirs.push(dir);
        const file = join(dir, 'c.yaml');
        writeFileSync(file, yaml);
        return runCli(['check-config', file]);
      }),
    );
    for (const [i, [yaml, field]] of cases.entries()) {
      expect(runs[i]?.code, yaml).toBe(2);
      expect(runs[i]?.stderr).toContain(`${field}:`);
    }
  });
});
