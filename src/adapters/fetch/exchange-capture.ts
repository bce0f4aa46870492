/**
 * A request's raw exchange for a tap (WARC): the head as undici wrote it, the response fields as
 * they came, the body de-chunked with its coding intact. Composed only when there is a tap.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import type { ExchangeTap, HttpExchange } from '../../ports/fetcher.js';
import { requestTarget } from './http-parts.js';

type Controller = Dispatcher.DispatchController;

export interface CaptureRequest {
  readonly tap: ExchangeTap;
  readonly url: string;
  readonly method: string;
  readonly jobId?: string | undefined;
  readonly body?: string | Buffer | undefined;
  /** Body bytes kept at most; past it the exchange is marked truncated. */
  readonly maxBodyBytes: number;
}

/** undici publishes a head synchronously after onRequestStart: it is the last starter's. */
let starting: CaptureHandler | undefined;
let subscribed = false;

function onSendHeaders(message: unknown): void {
  const m = message as {
    request?: { method?: unknown; path?: unknown };
    headers?: unknown;
    socket?: { remoteAddress?: string };
  };
  // A start aborted before its head was written must not take another client's next head.
  if (starting && typeof m.headers === 'string' && starting.isFor(m.request?.method, m.request?.path)) {
    starting.sent(m.headers, m.socket?.remoteAddress);
  }
  starting = undefined;
}

const PAYLOAD_METHODS = new Set(['POST', 'PUT', 'PATCH']);

// Forwarding written out, as in timing.ts (docs/history.md, a shared base class not kept).
class CaptureHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #req: CaptureRequest;
  readonly #target: string;
  #head: string | undefined;
  #ip: string | undefined;
  #date = new Date();
  #status = 0;
  #statusText = '';
  #headers: [string, string][] = [];
  #chunks: Buffer[] = [];
  #bytes = 0;
  #cut = false;
  #told = false;

  constructor(inner: Dispatcher.DispatchHandler, req: CaptureRequest) {
    this.#inner = inner;
    this.#req = req;
    this.#target = requestTarget(new URL(req.url));
  }

  isFor(method: unknown, path: unknown): boolean {
    return method === this.#req.method && (path === this.#target || path === this.#req.url);
  }

  sent(head: string, ip: string | undefined): void {
    this.#head = head;
    this.#ip = ip;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    this.#date = new Date();
    starting = this;
    this.#inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Controller,
    status: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#inner.onRequestUpgrade?.(controller, status, headers, socket);
  }

  onResponseStart(
    controller: Controller,
    status: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    if (status >= 200) {
      this.#status = status;
      this.#statusText = statusMessage ?? '';
      this.#headers = rawFields(controller, headers);
    }
    this.#inner.onResponseStart?.(controller, status, headers, statusMessage);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (!this.#cut) {
      const room = this.#req.maxBodyBytes - this.#bytes;
      if (chunk.length > room) this.#cut = true;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      this.#chunks.push(kept);
      this.#bytes += kept.length;
    }
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void {
    const end = () => this.#inner.onResponseEnd?.(controller, trailers);
    const kept = this.#tell(this.#cut ? 'length' : undefined);
    if (kept) kept.then(end, end);
    else end();
  }

  onResponseError(controller: Controller, error: Error): void {
    const fail = () => this.#inner.onResponseError?.(controller, error);
    // Only an exchange that got its response head is one; a failed connect archives nothing.
    const kept = this.#status !== 0 ? this.#tell(this.#cut ? 'length' : 'disconnect') : undefined;
    if (kept) kept.then(fail, fail);
    else fail();
  }

  /** The tap's promise, if it keeps the exchange off the event loop: the end waits for it. */
  #tell(truncated: HttpExchange['truncated']): Promise<void> | undefined {
    if (this.#told) return undefined;
    this.#told = true;
    const r = this.#req;
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const exchange: HttpExchange = {
      url: r.url,
      method: r.method,
      requestHead: Buffer.from(
        `${this.#head ?? fallbackHead(r)}${contentLength(r.method, body)}\r\n`,
        'latin1',
      ),
      ...(body !== undefined ? { requestBody: body } : {}),
      ...(r.jobId !== undefined ? { jobId: r.jobId } : {}),
      date: this.#date,
      ...(this.#ip !== undefined ? { ip: this.#ip } : {}),
      status: this.#status,
      statusText: this.#statusText,
      responseHeaders: this.#headers,
      body: this.#chunks.length === 1 ? this.#chunks[0]! : Buffer.concat(this.#chunks, this.#bytes),
      ...(truncated !== undefined ? { truncated } : {}),
    };
    try {
      return r.tap(exchange);
    } catch {
      // A tap's failure is its own (it reports it); the fetch goes on.
      return undefined;
    }
  }
}

/** undici writes the length of a body after the published head (client-h1.js writeH1). */
function contentLength(method: string, body: Buffer | undefined): string {
  if (body !== undefined && body.length > 0) return `content-length: ${body.length}\r\n`;
  return PAYLOAD_METHODS.has(method) ? 'content-length: 0\r\n' : '';
}

/** Only if undici published no head (another undici's channel): the request line and Host. */
function fallbackHead(r: CaptureRequest): string {
  const u = new URL(r.url);
  return `${r.method} ${requestTarget(u)} HTTP/1.1\r\nhost: ${u.host}\r\n`;
}

/** The fields as received (controller.rawHeaders, set by undici's client), else the parsed ones. */
function rawFields(controller: Controller, parsed: IncomingHttpHeaders): [string, string][] {
  const raw = (controller as { rawHeaders?: unknown }).rawHeaders;
  const out: [string, string][] = [];
  if (Array.isArray(raw)) {
    for (let i = 0; i + 1 < raw.length; i += 2) out.push([latin1(raw[i]), latin1(raw[i + 1])]);
    return out;
  }
  for (const [k, v] of Object.entries(parsed)) {
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.push([k, one]);
  }
  return out;
}

function latin1(v: unknown): string {
  return Buffer.isBuffer(v) ? v.toString('latin1') : String(v);
}

export function capturing(
  options: { readonly tap?: ExchangeTap | undefined; readonly maxBodyBytes: number },
  jobId: string | undefined,
  hop: { readonly url: URL; readonly method: string; readonly body?: string | Buffer },
): (handler: Dispatcher.DispatchHandler) => Dispatcher.DispatchHandler {
  if (!subscribed) {
    diagnostics.subscribe('undici:client:sendHeaders', onSendHeaders);
    subscribed = true;
  }
  const tap = options.tap ?? (() => undefined);
  const req: CaptureRequest = {
    tap,
    url: hop.url.href,
    method: hop.method,
    jobId,
    body: hop.body,
    maxBodyBytes: options.maxBodyBytes,
  };
  return (handler) => new CaptureHandler(handler, req);
}
