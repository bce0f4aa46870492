import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { started } from './cleanup.js';
import { waitFor } from './wait.js';

/** The entry point that ships: the bundle `npm run build` makes (scripts/bundle.mjs). */
export const CLI = resolve(import.meta.dirname, '../../dist/crawld.mjs');

export interface CliProcess {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  exited: Promise<number | string>;
  /** Resolves with the first stdout/stderr match (see waitFor in wait.ts; timeoutMs bounds a hang). */
  waitFor(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
}

export function tempDir(prefix = 'crawld-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Writes `config` as JSON to dir/name, with `dataDir: dir/data` unless it names one; returns the path. */
export function writeJsonConfig(dir: string, config: Record<string, unknown>, name = 'crawld.json'): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ dataDir: join(dir, 'data'), ...config }));
  return path;
}

export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): CliProcess {
  if (!existsSync(CLI)) throw new Error(`${CLI} missing: run npm run build first (npm test does)`);
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | string>((res) => {
    child.on('exit', (code, signal) => res(code ?? signal ?? -1));
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (re, timeoutMs = 15_000) =>
      waitFor(() => out.match(re) ?? err.match(re), {
        what: `${re} in its output`,
        deadlineMs: timeoutMs,
      }).catch((e: Error) => {
        throw new Error(`${e.message}; stdout:\n${out}\nstderr:\n${err}`);
      }),
  };
}

/** `crawld site --port 0 ARGS`, the demo site as a user starts it, and its origin once it listens. */
export async function startSiteCli(args: readonly string[]): Promise<{ proc: CliProcess; origin: string }> {
  const proc = startCli(['site', '--port', '0', ...args]);
  const origin = (await proc.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/))[1]!;
  return { proc, origin };
}

/**
 * Registers beforeAll/afterAll hooks that start `crawld site --port 0 ARGS` before the file's
 * tests and SIGTERM it after them. Read `origin` inside tests or later hooks.
 */
export function useSiteCli(args: readonly string[]): { readonly origin: string } {
  let site: { proc: CliProcess; origin: string } | undefined;
  beforeAll(async () => {
    site = await startSiteCli(args);
  });
  afterAll(async () => {
    site?.proc.child.kill('SIGTERM');
    await site?.proc.exited;
  });
  return {
    get origin() {
      return started(site, 'crawld site not started (origin read outside a test?)').origin;
    },
  };
}

/** Runs the CLI to completion. */
export async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 60_000,
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const p = startCli(args, env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** `crawld run --config FILE --once --no-progress`, as a user runs it, to completion. */
export function runOnce(config: string, timeoutMs?: number): ReturnType<typeof runCli> {
  return runCli(['run', '--config', config, '--once', '--no-progress'], {}, timeoutMs);
}

/**
 * Starts `crawld ARGS`, runs `body` with it, then SIGTERMs it and waits for its exit, also when
 * body throws: a daemon a test reads while it runs (its /metrics, its files) never outlives it.
 */
export async function withCli<T>(args: string[], body: (cli: CliProcess) => Promise<T>): Promise<T> {
  const cli = startCli(args);
  try {
    return await body(cli);
  } finally {
    cli.child.kill('SIGTERM');
    await cli.exited;
  }
}

/** The exposition of the daemon's /metrics on 127.0.0.1:port. */
export async function scrapeMetrics(port: number): Promise<string> {
  return (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
}

export interface ListedDeadLetter {
  readonly url: string;
  readonly reason: string;
  readonly attempts: number;
}

/** `crawld dlq list --json` with `where` (`['--data-dir', DIR]` or `['--config', FILE]`), parsed. */
export async function listDeadLetters(where: string[]): Promise<ListedDeadLetter[]> {
  const r = await runCli(['dlq', 'list', '--json', ...where]);
  if (r.code !== 0) throw new Error(`crawld dlq list exited ${r.code}: ${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as ListedDeadLetter);
}

export function readJsonl(path: string): Record<string, unknown>[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function countLines(path: string): number {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Ports freePort() has handed out in this process: never handed out twice. */
const handedOut = new Set<number>();

/** The kernel's ephemeral range: what listen(0) picks from. */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 12_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

/**
 * A TCP port that was free a moment ago (for child processes that need a fixed port). Picked
 * below the kernel's ephemeral range: a port from listen(0), released, could be handed out
 * again to the next listen(0) (a test's own site server) before the child bound it, and the
 * child failed with EADDRINUSE (seen in self-listener.test.ts).
 */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const low = 10_000;
  const high = ephemeralLow() - 1;
  for (let attempt = 0; ; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (handedOut.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(false));
      srv.listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
    });
    if (free) {
      handedOut.add(port);
      return port;
    }
    if (attempt > 200) throw new Error('freePort: no free port found below the ephemeral range');
  }
}
