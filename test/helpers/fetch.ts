/** Local fault-injecting HTTP servers and fetchers for the fetch-*.test.ts suites. */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { UndiciFetcherOptions } from '../../src/adapters/fetch/fetch-options.js';
import { UndiciFetcher } from '../../src/adapters/fetch/undici-fetcher.js';

export type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

export interface TestServer {
  readonly port: number;
  /** http://127.0.0.1:PORT (no trailing slash). */
  readonly origin: string;
  /** Requests the server has seen (a guard test asserts this stays 0). */
  readonly requests: number;
  /** TCP connections accepted (keep-alive test asserts reuse). */
  readonly connections: number;
  readonly paths: readonly string[];
  close(): Promise<void>;
}

const closers: Array<() => Promise<void>> = [];

/** Closes every server and fetcher created since the last call; use in afterEach. */
export async function closeAll(): Promise<void> {
  const pending = closers.splice(0);
  await Promise.all(pending.map((c) => c().catch(() => {})));
}

export async function startServer(handler: Handler): Promise<TestServer> {
  const server = http.createServer();
  const sockets = new Set<Socket>();
  const paths: string[] = [];
  let requests = 0;
  let connections = 0;
  server.on('connection', (s) => {
    connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('request', (req, res) => {
    requests++;
    paths.push(req.url ?? '');
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  closers.push(close);
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    get requests() {
      return requests;
    },
    get connections() {
      return connections;
    },
    paths,
    close,
  };
}

/** Test defaults: loopback allowed, and timeouts no answer on loopback reaches. */
export function makeFetcher(overrides: Partial<UndiciFetcherOptions> = {}): UndiciFetcher {
  // Timeouts far above what a loaded machine takes to answer on loopback: a test of a timeout
  // sets the one it tests; a request meant to succeed must not time out because the test
  // workers share two cores (a gzip bomb took 2.5 s to decode at load 11).
  const fetcher = new UndiciFetcher({
    connectTimeoutMs: 10_000,
    headersTimeoutMs: 10_000,
    bodyTimeoutMs: 10_000,
    totalTimeoutMs: 30_000,
    addressPolicy: { allowPrivateNetworks: true, allow: [] },
    ...overrides,
  });
  closers.push(() => fetcher.close());
  return fetcher;
}

/** Resolves with the rejection so tests can assert class and message together. */
export async function rejectionOf(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected the promise to reject');
}

export function html(body: string, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
}
