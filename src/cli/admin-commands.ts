/**
 * Operator commands on a daemon: `crawld submit` through its admin API, and `crawld dlq`
 * through the API or directly on a stored frontier (a stopped daemon's, or a shared one).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type DeadLetterView, deadLetterView, MAX_DLQ_LIMIT } from '../admin/validate.js';
import { type CrawldConfig, loadConfigFile, validateConfig } from '../config/config.js';
import { isHttpUrl, isRedisKind } from '../config/predicates.js';
import {
  AdminApiError,
  ConfigError,
  DataDirLockedError,
  InvalidArgumentError,
  UsageError,
} from '../core/errors.js';
import { lockDataDir } from '../daemon/data-dir-lock.js';
import { openFrontier } from '../daemon/frontier-factory.js';
import type { Frontier } from '../ports/frontier.js';
import { frontierOpt, intOpt, parse, strOpt } from './args.js';
import { commandSpec } from './command-table.js';

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
  const { values, positionals } = parse(argv, commandSpec('submit'));
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

/** Where `dlq` finds a stored frontier, and the flag that named it (for error messages). */
interface FrontierSource {
  readonly config: CrawldConfig;
  readonly flag: '--config' | '--data-dir' | '--frontier';
}

/**
 * Runs fn on the frontier a config names, opened as the daemon opens it (openFrontier). A
 * local one (SQLite) must be a stopped daemon's: taking its data-dir lock (and releasing it
 * after) both refuses a running daemon's dir and keeps one from starting meanwhile. A shared
 * Redis frontier is used while its daemons run: listDead and redrive are atomic per host.
 */
async function withStoredFrontier<T>(source: FrontierSource, fn: (f: Frontier) => Promise<T>): Promise<T> {
  const { config, flag } = source;
  const f = config.frontier;
  if (f.kind === 'memory') throw new UsageError(`${flag}: a memory frontier keeps nothing to work on`);
  let unlock = () => {};
  if (!isRedisKind(f.kind)) {
    const dataDir = resolve(config.dataDir);
    const path = f.path ?? join(dataDir, 'frontier.db');
    // Checked first: opening would create an empty frontier and hide a mistyped path.
    if (!existsSync(path)) throw new InvalidArgumentError(`${flag}: no frontier at ${path}`);
    unlock = lockStopped(dataDir);
  }
  try {
    const opened = await openFrontier(config).catch((err: unknown) => {
      // As for the daemon: no node of a cluster answering is most likely a wrong list (exit 2).
      if (flag !== '--frontier' || !(err instanceof ConfigError)) throw err;
      throw new UsageError(err.issues.map((i) => i.replace(/^frontier\.nodes:/, '--frontier:')).join('; '));
    });
    try {
      return await fn(opened.frontier);
    } finally {
      await opened.release();
    }
  } finally {
    unlock();
  }
}

function lockStopped(dataDir: string): () => void {
  try {
    return lockDataDir(dataDir);
  } catch (err) {
    if (!(err instanceof DataDirLockedError)) throw err;
    throw new DataDirLockedError(`${err.message}: stop the daemon first, or use --api URL while it runs`);
  }
}

/** The stored frontier named by --config, --data-dir or --frontier (with --key-prefix), if any. */
function frontierSource(values: Record<string, unknown>): FrontierSource | undefined {
  const file = strOpt(values.config);
  const dataDir = strOpt(values['data-dir']);
  const shared = frontierOpt(values.frontier);
  if ([file, dataDir, values.api, shared].filter((v) => v !== undefined).length > 1)
    throw new UsageError('dlq: give one of --api, --data-dir and --frontier (or --config FILE)');
  const keyPrefix = strOpt(values['key-prefix']);
  if (keyPrefix !== undefined && shared === undefined)
    throw new UsageError('dlq: --key-prefix is for --frontier redis://...');
  if (file !== undefined) return { config: loadConfigFile(file, process.env), flag: '--config' };
  if (dataDir !== undefined)
    return { config: validateConfig({ dataDir, frontier: { kind: 'sqlite' } }), flag: '--data-dir' };
  if (shared === undefined) return undefined;
  const frontier = { ...shared, ...(keyPrefix !== undefined ? { keyPrefix } : {}) };
  return { config: validateConfig({ frontier }), flag: '--frontier' };
}

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
  const { values, positionals } = parse(rest, commandSpec(`dlq ${sub}`));
  if (positionals.length > 0) throw new UsageError(`dlq ${sub}: unexpected argument '${positionals[0]}'`);
  const source = frontierSource(values);
  // The stored frontier to work on directly, when not going through a daemon's API.
  const direct =
    source !== undefined ? <T>(fn: (f: Frontier) => Promise<T>) => withStoredFrontier(source, fn) : undefined;
  const job = strOpt(values.job);
  if (sub === 'list') {
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
