import { rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import winston from 'winston';
import type { ConfigInput } from '../../src/config/config.js';
import { validateConfig } from '../../src/config/config.js';
import type { CrawlEvents } from '../../src/core/events.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { tempDir } from './cli.js';

/**
 * Shared plumbing of the control-plane integration tests: a real daemon in-process on a memory
 * frontier, and small node:http servers on 127.0.0.1 whose replies a test scripts to inject
 * faults. Every test observes through daemon.events and the server's own request log, waiting
 * for them with waitFor (wait.ts), never through sleeps.
 */

/** What a scripted server does with one request. */
export type Reply =
  | {
      readonly status?: number;
      readonly headers?: Record<string, string>;
      readonly body?: string;
      readonly delayMs?: number;
    }
  /** Destroy the socket without an answer (connection reset). */
  | 'reset';

export interface Arrival {
  readonly path: string;
  /** performance.now() at arrival. */
  readonly at: number;
  /** 1-based arrival number over all paths. */
  readonly n: number;
}

export interface TestServer {
  readonly url: string;
  readonly host: string;
  readonly arrivals: Arrival[];
  close(): Promise<void>;
}

/** HTML page linking to the given paths (relative links stay on the server's host). */
export function page(title: string, links: readonly string[] = []): string {
  const as = links.map((l) => `<a href="${l}">${l}</a>`).join('\n');
  return `<!DOCTYPE html><html><head><title>${title}</title></head><body><h1>${title}</h1>${as}</body></html>`;
}

export const html = (body: string): Reply => ({
  status: 200,
  headers: { 'content-type': 'text/html; charset=utf-8' },
  body,
});

export async function startServer(respond: (path: string, a: Arrival) => Reply): Promise<TestServer> {
  const arrivals: Arrival[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const arrival = { path, at: performance.now(), n: arrivals.length + 1 };
    arrivals.push(arrival);
    const reply = respond(path, arrival);
    if (reply === 'reset') {
      req.socket.destroy();
      return;
    }
    const send = () => {
      const body = Buffer.from(reply.body ?? '');
      res.writeHead(reply.status ?? 200, {
        'content-type': 'text/plain',
        ...reply.headers,
        'content-length': body.length,
      });
      res.end(body);
    };
    if (!reply.delayMs) return send();
    const t = setTimeout(() => {
      timers.delete(t);
      send();
    }, reply.delayMs);
    timers.add(t);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A 127.0.0.1 port with nothing listening: bind an ephemeral port, then release it. */
export async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

type Recorded = { [K in keyof CrawlEvents]: (CrawlEvents[K] & { at: number })[] };

export interface TestDaemon {
  readonly daemon: Daemon;
  /** Every event so far, by name, stamped with performance.now(). */
  readonly events: Recorded;
  /** Warn/error log lines of the daemon (breaker transitions are logged at warn). */
  readonly logs: { message: string; at: number; [k: string]: unknown }[];
  /** Resolves when run() ends; rejects if it failed. */
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

const RECORDED = [
  'fetched',
  'pageDone',
  'retry',
  'deferred',
  'deadLettered',
  'skipped',
  'fetchError',
] as const satisfies readonly (keyof CrawlEvents)[];

/**
 * Defaults for these tests: memory frontier, loopback allowed, short timeouts and retry
 * delays so each case runs in seconds, the pure breaker policy. `overrides` are merged one
 * level deep (per section), so a test names only what it is about.
 */
export function testConfig(overrides: ConfigInput): ConfigInput {
  const base: ConfigInput = {
    dataDir: tempDir('crawld-control-'),
    log: { level: 'warn' },
    frontier: { kind: 'memory', leaseMs: 60_000 },
    fetch: {
      allowAddresses: ['127.0.0.1'],
      connectTimeoutMs: 1000,
      headersTimeoutMs: 2000,
      bodyTimeoutMs: 2000,
      totalTimeoutMs: 3000,
    },
    retry: { maxAttempts: 4, baseDelayMs: 50, maxDelayMs: 500 },
    breaker: { implementation: 'policy' },
    hostBackoff: { initialPauseMs: 500, maxPauseMs: 5000 },
    shutdown: { drainTimeoutMs: 1000 },
  };
  const merged: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    const b = merged[k];
    merged[k] =
      v && b && typeof v === 'object' && typeof b === 'object' && !Array.isArray(v) ? { ...b, ...v } : v;
  }
  return merged as ConfigInput;
}

export async function startDaemon(input: ConfigInput, options: { once: boolean }): Promise<TestDaemon> {
  const logs: TestDaemon['logs'] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split('\n')) {
        if (line.trim()) logs.push({ ...JSON.parse(line), at: performance.now() });
      }
      cb();
    },
  });
  const logger = winston.createLogger({
    level: 'warn',
    format: winston.format.json(),
    transports: [new winston.transports.Stream({ stream: sink })],
  });
  const config = validateConfig(testConfig(input));
  const daemon = await createDaemon(config, { once: options.once, logger });
  const events = Object.fromEntries(RECORDED.map((k) => [k, []])) as unknown as Recorded;
  for (const name of RECORDED) {
    const list = events[name] as { at: number }[];
    daemon.events.on(name, (p: object) => list.push({ ...p, at: performance.now() }));
  }
  const done = daemon.run();
  done.catch(() => undefined);
  const stop = async () => {
    await daemon.stop();
    rmSync(config.dataDir, { recursive: true, force: true });
  };
  return { daemon, events, logs, done, stop };
}

export const pagePaths = (n: number, prefix = '/p/'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`);
