import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdminTokenSource } from '../../src/admin/auth.js';
import { createDaemonApp } from '../../src/admin/routes.js';
import { type ConfigInput, validateConfig } from '../../src/config/config.js';
import { systemClock } from '../../src/core/clock.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { type HttpServerHandle, listen } from '../../src/observe/http-server.js';

export const TOKEN = 'test-admin-token-0123456789';
export const MAX_BODY = 2048;

/** A site where /ok/* answers 200 and everything else 404 (so those pages are dead-lettered). */
export async function startTarget(): Promise<{ origin: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/ok/')) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<title>ok</title><p>ok</p>');
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export interface AdminFixture {
  readonly daemon: Daemon;
  readonly running: Promise<void>;
  readonly http: HttpServerHandle;
  close(): Promise<void>;
}

/** A running daemon and its app on 127.0.0.1:0, wired like run-daemon does it. */
export async function startDaemon(
  dataDir: string,
  jobs: ConfigInput['jobs'],
  /** null: no token configured (a default parameter would turn undefined into TOKEN). */
  adminToken: AdminTokenSource | null = TOKEN,
): Promise<AdminFixture> {
  const config = validateConfig({
    dataDir,
    log: { level: 'error' },
    http: { port: 0, maxBodyBytes: MAX_BODY },
    fetch: { allowPrivateNetworks: true },
    retry: { maxAttempts: 1 },
    jobs,
  });
  const daemon = await createDaemon(config, { once: false });
  const running = daemon.run();
  const http = await listen(
    createDaemonApp(daemon, { clock: systemClock, adminToken: adminToken ?? undefined }),
    '127.0.0.1',
    0,
  );
  return {
    daemon,
    running,
    http,
    async close() {
      await http.close();
      await daemon.stop();
      await running;
    },
  };
}

export interface CallOptions {
  /** undefined: the good token; null: no Authorization header. */
  readonly token?: string | null;
  readonly json?: unknown;
  readonly raw?: string;
  readonly type?: string;
}

export async function call(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  opts: CallOptions = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown>; text: string }> {
  const headers: Record<string, string> = {};
  const token = opts.token === undefined ? TOKEN : opts.token;
  if (token !== null) headers.authorization = token.includes(' ') ? token : `Bearer ${token}`;
  let body: string | undefined;
  if (opts.json !== undefined) body = JSON.stringify(opts.json);
  if (opts.raw !== undefined) body = opts.raw;
  if (body !== undefined) headers['content-type'] = opts.type ?? 'application/json';
  const res = await fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: Record<string, unknown> = {};
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // /metrics and the status page are not JSON.
  }
  return { status: res.status, headers: res.headers, body: parsed, text };
}
