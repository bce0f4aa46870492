import type { CookieJar } from './cookie-jar.js';

export interface RenderRequest {
  /** auto is resolved per host by the engine; a fetcher reads it as http. */
  readonly kind: 'http' | 'browser' | 'auto';
  readonly waitUntil: 'load' | 'domcontentloaded' | 'networkidle';
  readonly waitForSelector?: string | undefined;
  readonly timeoutMs: number;
  readonly blockResources: readonly string[];
}

export interface FetchRequest {
  readonly url: string;
  /** For the exchange tap (WARC) only. */
  readonly jobId?: string;
  /** @default 'GET' */
  readonly method?: string;
  /** Values may be secrets: never logged; credentials dropped on a cross-origin redirect. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Kept on 307/308, dropped when a redirect switches to GET. */
  readonly body?: string | Buffer;
  /** false: direct. Undefined: the fetcher's own setting. */
  readonly proxy?: readonly string[] | false;
  /** false ends the fetch with RedirectOutOfScopeError. Undefined: every redirect is followed. */
  readonly followRedirect?: (target: URL) => boolean;
  readonly cookieJar?: CookieJar;
  /** Already fetched over HTTP: a browser renders it instead of fetching again (render kind auto). */
  readonly document?: FetchResponse;
  readonly render?: RenderRequest;
  /** Rejects with AbortedError. */
  readonly signal?: AbortSignal;
}

export interface FetchResponse {
  readonly url: string;
  readonly status: number;
  /** Lower case; repeats joined with ', '. */
  readonly headers: Readonly<Record<string, string>>;
  readonly contentType: string;
  /** Decoded. */
  readonly body: Buffer;
  /** Compressed. */
  readonly wireBytes: number;
  readonly redirects: readonly string[];
  /** Of the final hop, from when the request was written. */
  readonly ttfbMs: number;
  /** Of ttfbMs, the time spent waiting on our own event loop (see LoopTurn). */
  readonly queuedMs?: number;
  readonly totalMs: number;
}

/** One request and response as they crossed the wire, for WARC: every hop, robots.txt, sitemaps. */
export interface HttpExchange {
  readonly jobId?: string;
  readonly url: string;
  readonly method: string;
  readonly requestHead: Buffer;
  readonly requestBody?: Buffer;
  readonly date: Date;
  readonly ip?: string;
  readonly status: number;
  readonly statusText: string;
  /** As received: case, order and repeats kept. */
  readonly responseHeaders: readonly (readonly [string, string])[];
  /** Transfer-decoded, not content-decoded. */
  readonly body: Buffer;
  /** Cut at a cap, or the response ended early. */
  readonly truncated?: 'length' | 'disconnect';
}

/**
 * Must not throw or block. A promise (archives written off the event loop) holds the exchange's
 * end until it settles, so a fetch resolves only once its exchanges are kept.
 */
export type ExchangeTap = (exchange: HttpExchange) => Promise<void> | undefined;

/** Resolves with any HTTP status; rejects only with a FetchError subclass (core/errors.ts). */
export interface Fetcher {
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /** Whether a render would start now: render kind auto re-checks only then. */
  renderIdle?(): boolean;
  /** Releases every connection at once: callers drain their fetches first. */
  close(): Promise<void>;
}
