import type { CookieJar } from './cookie-jar.js';

/** How a browser fetcher renders a page (jobs[].render); other fetchers ignore it. */
export interface RenderRequest {
  /** auto is resolved per host by the engine (engine/task/auto-render.ts); a fetcher reads it as http. */
  readonly kind: 'http' | 'browser' | 'auto';
  readonly waitUntil: 'load' | 'domcontentloaded' | 'networkidle';
  /** Then wait until this CSS selector is attached to the DOM. */
  readonly waitForSelector?: string | undefined;
  /** Budget of the whole render. */
  readonly timeoutMs: number;
  /** Resource types the page may not fetch (image, media, font, stylesheet). */
  readonly blockResources: readonly string[];
}

export interface FetchRequest {
  readonly url: string;
  /** The job asking: handed to the fetcher's exchange tap (WARC archives), read by nothing else. */
  readonly jobId?: string;
  /** @default 'GET' */
  readonly method?: string;
  /**
   * Extra request headers (a job's `request.headers` and cookies). Values may be secrets:
   * a Fetcher never logs them or puts them in errors, and drops Authorization, Cookie and
   * Proxy-Authorization on a redirect to another origin.
   */
  readonly headers?: Readonly<Record<string, string>>;
  /** Request body (POST APIs); kept on 307/308, dropped when a redirect switches to GET. */
  readonly body?: string | Buffer;
  /**
   * Proxies for this request (a job's `proxy`): a list to rotate through, or false for a
   * direct connection. Undefined: the fetcher's own setting (fetch.proxy or the environment).
   */
  readonly proxy?: readonly string[] | false;
  /**
   * Asked before each redirect is followed (after the loop and hop checks, before any
   * connection): false ends the fetch with RedirectOutOfScopeError. Undefined: every
   * redirect is followed.
   */
  readonly followRedirect?: (target: URL) => boolean;
  /**
   * The job's cookie jar: each hop (redirects and refreshes included) sends what the jar holds
   * for its URL and stores what the response sets. Undefined: no cookies but `headers`' own.
   */
  readonly cookieJar?: CookieJar;
  /**
   * The document, already fetched over HTTP for this request: a browser fetcher renders it
   * instead of fetching it again (render kind auto compares both from one GET).
   */
  readonly document?: FetchResponse;
  /** Render in a browser (jobs[].render); undefined or kind http: a plain HTTP fetch. */
  readonly render?: RenderRequest;
  /** Aborts the request (shutdown); the fetch then rejects with AbortedError. */
  readonly signal?: AbortSignal;
}

export interface FetchResponse {
  /** Final URL after redirects. */
  readonly url: string;
  readonly status: number;
  /** Lower-case header names; repeated headers joined with ', '. */
  readonly headers: Readonly<Record<string, string>>;
  /** Media type without parameters, lower case, '' when absent. */
  readonly contentType: string;
  /** Decoded (decompressed) body. Empty for HEAD and bodies skipped by the content-type filter. */
  readonly body: Buffer;
  /** Bytes received on the wire (compressed). */
  readonly wireBytes: number;
  /** URLs visited before the final one. */
  readonly redirects: readonly string[];
  /** Time to response headers of the final hop, measured from when the request was written. */
  readonly ttfbMs: number;
  /**
   * Of ttfbMs, the estimated time the headers waited while this process ran other callbacks:
   * its own delay, not the server's (see LoopTurn). Absent if the fetcher does not measure it.
   */
  readonly queuedMs?: number;
  /** Whole duration including redirects and body. */
  readonly totalMs: number;
}

/**
 * One HTTP request and its response as they crossed the wire, for archives (WARC). A fetcher
 * with an exchange tap hands one per request it sends: every redirect hop, robots.txt, sitemaps.
 */
export interface HttpExchange {
  /** The job whose request it was; undefined for requests of no one job (robots.txt). */
  readonly jobId?: string;
  readonly url: string;
  readonly method: string;
  /** The request head as written to the socket: request line, headers and the blank line. */
  readonly requestHead: Buffer;
  readonly requestBody?: Buffer;
  /** When the request was written. */
  readonly date: Date;
  /** The server's address, when the socket told it. */
  readonly ip?: string;
  readonly status: number;
  readonly statusText: string;
  /** Response header fields as received: names' case, order and repeats kept. */
  readonly responseHeaders: readonly (readonly [string, string])[];
  /** The entity body after transfer decoding (de-chunked), before content decoding. */
  readonly body: Buffer;
  /** Set when the body did not come whole: cut at a cap ('length') or the response ended early. */
  readonly truncated?: 'length' | 'disconnect';
}

/** Told every exchange a fetcher completes; must not throw (errors are dropped) and must not block. */
export type ExchangeTap = (exchange: HttpExchange) => void;

/**
 * Fetches one URL. Resolves with any HTTP status (the caller classifies it); rejects with a
 * FetchError subclass from core/errors.ts for network failures, timeouts, caps, redirect
 * problems and blocked addresses. Never rejects with a non-FetchError.
 */
export interface Fetcher {
  fetch(request: FetchRequest): Promise<FetchResponse>;
  /**
   * Fetchers that render: whether a render would start now, without waiting for a browser page.
   * Render kind auto re-checks a host only then, so checks never delay the renders pages need.
   */
  renderIdle?(): boolean;
  /**
   * Releases every connection at once, without waiting for servers to answer the close: callers
   * finish or drain their fetches first (a fetch still in flight fails).
   */
  close(): Promise<void>;
}
