/**
 * A small site on 127.0.0.1 whose answers a test switches at run time: a binary tree of
 * pages ('/' is page 0, '/p/<i>' page i, linking to 2i+1 and 2i+2) behind a fault function
 * that can answer 429 with Retry-After, 5xx, reset the connection, or hang (accept the request
 * and never answer it). Every request is logged with its time and answer, so tests and
 * bench/outage.mjs and bench/hangs.mjs count what reached the site during and after a fault.
 * robots.txt is always 404 (the faults under test are the pages').
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { isPageRequest } from './probe.js';

export type FaultAnswer =
  | 'ok'
  | 'reset'
  /**
   * Accepted and never answered: the request holds its connection until the client gives up
   * (an overloaded app server, a lost packet, a stuck backend). It takes none of `capacity`.
   */
  | 'hang'
  | { readonly status: number; readonly headers?: Record<string, string> };

export interface FaultRequest {
  /** Path with query. */
  readonly path: string;
  /** 1 for the first request of this path, 2 for the second... */
  readonly nth: number;
  /** ms since the site started (monotonic). */
  readonly atMs: number;
}

export interface LoggedRequest {
  readonly path: string;
  readonly atMs: number;
  readonly answer: 'ok' | 'reset' | 'hang' | number;
  /** Page requests in flight at the site when this one arrived, itself included (hung ones not). */
  readonly inflight: number;
}

export interface FaultSiteOptions {
  readonly pages: number;
  /** Decides each page request's answer. @default always 'ok' */
  readonly fault?: (req: FaultRequest) => FaultAnswer;
  /** Delay before each answer, or a function of the request's arrival (ms since start). @default 0 */
  readonly latencyMs?: number | ((atMs: number) => number);
  /**
   * Requests in flight answered at latencyMs; the n-th in flight beyond it waits latencyMs × n /
   * capacity (the demo site's knee), so the host holds the crawler to capacity / latencyMs
   * pages/s by latency alone. @default unlimited
   */
  readonly capacity?: number;
}

export interface FaultSite {
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  /** ms since the site started. */
  now(): number;
  setFault(fault: (req: FaultRequest) => FaultAnswer): void;
  /** Page requests (robots.txt and the soft-404 probe excluded), in arrival order. */
  readonly log: readonly LoggedRequest[];
  /** Page requests that arrived in [fromMs, toMs). */
  between(fromMs: number, toMs: number): number;
  /** Hung requests the client has not given up yet. */
  hanging(): number;
  close(): Promise<void>;
}

function pageBody(i: number, pages: number): string {
  const links = [2 * i + 1, 2 * i + 2]
    .filter((j) => j < pages)
    .map((j) => `<a href="/p/${j}">page ${j}</a>`)
    .join(' ');
  return `<!DOCTYPE html><html><head><title>page ${i}</title></head><body><h1>${i}</h1>${links}</body></html>`;
}

function pageIndex(path: string, pages: number): number | undefined {
  if (path === '/') return 0;
  const m = /^\/p\/(\d+)$/.exec(path);
  const i = m ? Number(m[1]) : Number.NaN;
  return Number.isInteger(i) && i > 0 && i < pages ? i : undefined;
}

export async function startFaultSite(options: FaultSiteOptions): Promise<FaultSite> {
  const started = performance.now();
  const now = () => performance.now() - started;
  let fault = options.fault ?? (() => 'ok' as const);
  const log: LoggedRequest[] = [];
  const seen = new Map<string, number>();
  const sockets = new Set<Socket>();
  let inflight = 0;
  let hanging = 0;

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    // Not page requests: robots.txt, and the soft-404 probe a host gets after 10 pages (a 404 here).
    if (!isPageRequest(path)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('none');
      return;
    }
    const atMs = now();
    const nth = (seen.get(path) ?? 0) + 1;
    seen.set(path, nth);
    const answer = fault({ path, nth, atMs });
    if (answer === 'hang') {
      hanging++;
      res.once('close', () => hanging--);
      log.push({ path, atMs, answer, inflight });
      return;
    }
    inflight++;
    res.once('close', () => inflight--);
    log.push({ path, atMs, answer: typeof answer === 'string' ? answer : answer.status, inflight });
    const respond = () => {
      if (answer === 'reset') {
        req.socket.resetAndDestroy();
        return;
      }
      if (answer !== 'ok') {
        res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('fault');
        return;
      }
      const i = pageIndex(path, options.pages);
      if (i === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(pageBody(i, options.pages));
    };
    const latency = options.latencyMs ?? 0;
    let delay = typeof latency === 'number' ? latency : latency(atMs);
    if (options.capacity !== undefined && inflight > options.capacity)
      delay = (delay * inflight) / options.capacity;
    if (delay > 0) setTimeout(respond, delay);
    else respond();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    now,
    setFault(f) {
      fault = f;
    },
    log,
    between: (fromMs, toMs) => log.filter((r) => r.atMs >= fromMs && r.atMs < toMs).length,
    hanging: () => hanging,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
