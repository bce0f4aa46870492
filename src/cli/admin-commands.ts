/**
 * Operator commands on a daemon: `crawld submit` through its admin API, and `crawld dlq`
 * through the API or directly on a stopped daemon's data dir.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SqliteFrontier } from '../adapters/frontier/sqlite.js';
import { systemClock } from '../core/clock.js';
import { CrawldError, InvalidArgumentError } from '../core/errors.js';
import { type DeadLetterView, deadLetterView, MAX_DLQ_LIMIT } from '../daemon/admin-validate.js';
import { isHttpUrl } from '../daemon/config-schema.js';
import { DataDirLockedError, lockDataDir } from '../daemon/data-dir-lock.js';
import type { Frontier } from '../ports/frontier.js';
import { frontierOpt, intOpt, parse, type SharedFrontierOpt, strOpt, UsageError } from './args.js';

/** The API refused or could not be reached: a runtime failure (exit 1), not bad usage. */
export class AdminApiError extends CrawldError {
  override readonly code: string = 'CRAWLD_ERR_ADMIN_API';
}

/** The port the shipped configs (deploy/) give the daemon's HTTP server. */
const DEFAULT_API = 'http://127.0.0.1:9464';
const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;

interface ApiAnswer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

function apiBase(values: Record<string, unknown>): string {
  const api = strOpt(values.api) ?? process.env.CRAWLD_API ?? DEFAULT_API;
  if (!isHttpUrl(api)) throw new UsageError(`--api: must be an http(s) URL, got '${api}'`);
  return api.replace(/\/+$/, '');
}

/** --token-file, else CRAWLD_ADMIN_TOKEN; never a flag holding the token (it would show in ps). */
function adminToken(values: Record<string, unknown>): string {
  const file = strOpt(values['token-file']);
  if (file !== undefined) {
    try {
      const token = readFileSync(file, 'utf8').trim();
      if (token !== '') return token;
    } catch (err) {
      throw new UsageError(
        `--token-file: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`,
      );
    }
    throw new UsageError(`--token-file: ${file} is empty`);
  }
  const env = process.env.CRAWLD_ADMIN_TOKEN?.trim();
  if (env) return env;
  throw new UsageError('no admin token: pass --token-file FILE or set CRAWLD_ADMIN_TOKEN');
}

async function callApi(base: string, method: 'GET' | 'POST', path: string, token?: string, body?: unknown) {
  const headers: Record<string, string> = {};
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (err) {
    // fetch() says only 'fetch failed'; the useful part (ECONNREFUSED, bad port) is the cause.
    const c = (err as { cause?: { code?: string; message?: string } }).cause;
    const cause = c?.code ?? c?.message ?? (err as Error).message;
    throw new AdminApiError(
      `cannot reach the admin API at ${base} (${cause}); is the daemon running with http.port set?`,
    );
  }
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Not our daemon, or a proxy's error page: report the status alone.
  }
  return { status: res.status, body: parsed } satisfies ApiAnswer;
}

/** Prints a refused request; 400 is the caller's input (exit 2), anything else exit 1. */
function reportFailure(answer: ApiAnswer): number {
  const error = typeof answer.body.error === 'string' ? answer.body.error : `HTTP ${answer.status}`;
  const issues = Array.isArray(answer.body.issues) ? answer.body.issues.map(String) : [];
  process.stderr.write(`crawld: ${error}${issues.map((i) => `\n  ${i}`).join('')}\n`);
  return answer.status === 400 ? EXIT_USAGE : EXIT_FAILURE;
}

export async function submitCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parse(argv, {
    api: { type: 'string' },
    'token-file': { type: 'string' },
    priority: { type: 'string' },
    job: { type: 'string' },
  });
  if (positionals.length === 0) throw new UsageError('submit: give at least one URL');
  const bad = positionals.filter((u) => !isHttpUrl(u));
  if (bad.length > 0) throw new UsageError(`submit: not an absolute http(s) URL: ${bad.join(', ')}`);
  const priority = intOpt(values.priority, 'priority', -1_000_000_000, 1_000_000_000);
  const job = strOpt(values.job);
  const body = {
    urls: positionals,
    ...(job !== undefined ? { job } : {}),
    ...(priority !== undefined ? { priority } : {}),
  };
  const answer = await callApi(apiBase(values), 'POST', '/api/urls', adminToken(values), body);
  if (answer.status !== 202) return reportFailure(answer);
  const { added, duplicates, dropped } = answer.body;
  process.stdout.write(`submitted: ${added} added, ${duplicates} duplicates, ${dropped} dropped\n`);
  return EXIT_OK;
}

/**
 * Opens DIR/frontier.db of a stopped daemon. Taking the data-dir lock (and releasing it
 * after) both refuses a running daemon's dir and keeps one from starting meanwhile.
 */
async function withStoppedFrontier<T>(dir: string, fn: (f: Frontier) => Promise<T>): Promise<T> {
  const abs = resolve(dir);
  const path = join(abs, 'frontier.db');
  // Checked first: opening would create an empty frontier and hide a mistyped path.
  if (!existsSync(path)) throw new InvalidArgumentError(`--data-dir: no frontier at ${path}`);
  let unlock: () => void;
  try {
    unlock = lockDataDir(abs);
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    throw new DataDirLockedError(`${err.message}: stop the daemon first, or use --api URL while it runs`);
  }
  const frontier = new SqliteFrontier({ path, clock: systemClock });
  try {
    await frontier.open();
    return await fn(frontier);
  } finally {
    await frontier.close();
    unlock();
  }
}

/**
 * A shared Redis frontier, used while its daemons run: listDead and redrive are atomic per
 * host in Redis, so no lock is needed (and a daemon's data dir does not hold the frontier).
 */
async function withRedisFrontier<T>(
  shared: SharedFrontierOpt,
  keyPrefix: string | undefined,
  fn: (f: Frontier) => Promise<T>,
): Promise<T> {
  const { RedisFrontier } = await import('../adapters/frontier/redis.js');
  const frontier = new RedisFrontier({
    ...(shared.kind === 'redis' ? { url: shared.url } : { nodes: shared.nodes }),
    clock: systemClock,
    ...(keyPrefix !== undefined ? { keyPrefix } : {}),
  });
  try {
    await frontier.open();
  } catch (err) {
    // As for the daemon: no node of a cluster answering is most likely a wrong list (exit 2).
    const unreachable = (err as { code?: unknown }).code === 'CRAWLD_ERR_REDIS_UNAVAILABLE';
    if (shared.kind !== 'redis-cluster' || !unreachable) throw err;
    throw new UsageError(
      `--frontier: cannot reach any node of the Redis Cluster (${shared.nodes.join(', ')}): ${(err as Error).message}`,
    );
  }
  try {
    return await fn(frontier);
  } finally {
    await frontier.close();
  }
}

const dlqOptions = {
  api: { type: 'string' },
  'data-dir': { type: 'string' },
  frontier: { type: 'string' },
  'key-prefix': { type: 'string' },
  'token-file': { type: 'string' },
  job: { type: 'string' },
  json: { type: 'boolean' },
  limit: { type: 'string' },
  offset: { type: 'string' },
  id: { type: 'string', multiple: true },
} as const;

function printDeadLetters(items: readonly DeadLetterView[], json: boolean): void {
  if (json) {
    for (const d of items) process.stdout.write(`${JSON.stringify(d)}\n`);
    return;
  }
  if (items.length === 0) {
    process.stdout.write('no dead letters\n');
    return;
  }
  const rows = [
    ['ID', 'ATTEMPTS', 'REASON', 'URL'],
    ...items.map((d) => [d.id, String(d.attempts), d.reason, d.url]),
  ];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => r[c]?.length ?? 0)));
  for (const r of rows) {
    process.stdout.write(`${r.map((cell, c) => (c < 3 ? cell.padEnd(widths[c] ?? 0) : cell)).join('  ')}\n`);
  }
}

export async function dlqCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== 'list' && sub !== 'redrive')
    throw new UsageError(`dlq: expected 'list' or 'redrive', got '${sub ?? ''}'`);
  const { values, positionals } = parse(rest, dlqOptions);
  if (positionals.length > 0) throw new UsageError(`dlq ${sub}: unexpected argument '${positionals[0]}'`);
  const dataDir = strOpt(values['data-dir']);
  const store = frontierOpt(values.frontier);
  if ([dataDir, values.api, store].filter((v) => v !== undefined).length > 1)
    throw new UsageError('dlq: give one of --api, --data-dir and --frontier');
  const keyPrefix = strOpt(values['key-prefix']);
  if (keyPrefix !== undefined && store === undefined)
    throw new UsageError('dlq: --key-prefix is for --frontier redis://...');
  // The stored frontier to work on directly, when not going through a daemon's API.
  const direct =
    store !== undefined
      ? <T>(fn: (f: Frontier) => Promise<T>) => withRedisFrontier(store, keyPrefix, fn)
      : dataDir !== undefined
        ? <T>(fn: (f: Frontier) => Promise<T>) => withStoppedFrontier(dataDir, fn)
        : undefined;
  const job = strOpt(values.job);
  if (sub === 'list') {
    if (values.id !== undefined) throw new UsageError('dlq list: --id is for redrive');
    const limit = intOpt(values.limit, 'limit', 1, MAX_DLQ_LIMIT) ?? 100;
    const offset = intOpt(values.offset, 'offset', 0) ?? 0;
    let items: DeadLetterView[];
    if (direct !== undefined) {
      const dead = await direct((f) => f.listDead({ limit, offset, ...(job ? { jobId: job } : {}) }));
      items = dead.map(deadLetterView);
    } else {
      const q = new URLSearchParams({
        limit: String(limit),
        offset: String(offset),
        ...(job ? { job } : {}),
      });
      const answer = await callApi(apiBase(values), 'GET', `/api/dlq?${q}`);
      if (answer.status !== 200) return reportFailure(answer);
      items = answer.body.items as DeadLetterView[];
    }
    printDeadLetters(items, Boolean(values.json));
    return EXIT_OK;
  }
  if (values.json || values.limit !== undefined || values.offset !== undefined) {
    throw new UsageError('dlq redrive: --json, --limit and --offset are for list');
  }
  const ids = Array.isArray(values.id) ? values.id.map(String) : undefined;
  const request = { ...(ids !== undefined ? { ids } : {}), ...(job !== undefined ? { job } : {}) };
  let redriven: number;
  if (direct !== undefined) {
    redriven = await direct((f) =>
      f.redrive({ ...(ids !== undefined ? { ids } : {}), ...(job !== undefined ? { jobId: job } : {}) }),
    );
  } else {
    const answer = await callApi(apiBase(values), 'POST', '/api/dlq/redrive', adminToken(values), request);
    if (answer.status !== 200) return reportFailure(answer);
    redriven = Number(answer.body.redriven);
  }
  process.stdout.write(`redriven: ${redriven}\n`);
  return EXIT_OK;
}
