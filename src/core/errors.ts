import type { Bound } from './bound.js';
import type { TimeoutPhase } from './timeout-phase.js';

/**
 * One errors module. Every error has a stable `code` (like undici's UND_ERR_*) and says
 * whether retrying can help; the retry policy reads `retryable`, never the message, and the
 * CLI picks its exit status by `code` (test/unit/errors.test.ts pins every class's code).
 */

/** Every code a crawld error can carry; `CRAWLD_ERR_UNKNOWN` is errorCode() of anything else. */
export type ErrorCode =
  | 'CRAWLD_ERR'
  | 'CRAWLD_ERR_UNKNOWN'
  | 'CRAWLD_ERR_CONFIG'
  | 'CRAWLD_ERR_USAGE'
  | 'CRAWLD_ERR_INVALID_URL'
  | 'CRAWLD_ERR_INVALID_ARG'
  | 'CRAWLD_ERR_JSON_PATH'
  | 'CRAWLD_ERR_DATA_DIR_LOCKED'
  | 'CRAWLD_ERR_ADMIN_API'
  | 'CRAWLD_ERR_REDIS_UNAVAILABLE'
  | 'CRAWLD_ERR_REDIS_LAYOUT'
  | 'CRAWLD_ERR_FETCH'
  | 'CRAWLD_ERR_CONNECT_TIMEOUT'
  | 'CRAWLD_ERR_HEADERS_TIMEOUT'
  | 'CRAWLD_ERR_BODY_TIMEOUT'
  | 'CRAWLD_ERR_TOTAL_TIMEOUT'
  | 'CRAWLD_ERR_HUNG'
  | 'CRAWLD_ERR_CONNECTION'
  | 'CRAWLD_ERR_TLS'
  | 'CRAWLD_ERR_BODY_TOO_LARGE'
  | 'CRAWLD_ERR_HEADERS_TOO_LARGE'
  | 'CRAWLD_ERR_DECODED_TOO_LARGE'
  | 'CRAWLD_ERR_DECODE'
  | 'CRAWLD_ERR_TOO_MANY_REDIRECTS'
  | 'CRAWLD_ERR_REDIRECT_LOOP'
  | 'CRAWLD_ERR_REDIRECT_OUT_OF_SCOPE'
  | 'CRAWLD_ERR_RENDER_TIMEOUT'
  | 'CRAWLD_ERR_RENDER_CRASH'
  | 'CRAWLD_ERR_BROWSER_UNAVAILABLE'
  | 'CRAWLD_ERR_BLOCKED_SCHEME'
  | 'CRAWLD_ERR_BLOCKED_ADDRESS'
  | 'CRAWLD_ERR_PROXY'
  | 'CRAWLD_ERR_CONTENT_TYPE'
  | 'CRAWLD_ERR_ABORTED'
  | 'CRAWLD_ERR_HTTP_STATUS'
  | 'CRAWLD_ERR_HTML_TOO_DEEP'
  | 'CRAWLD_ERR_SINK'
  | 'CRAWLD_ERR_CHANGE_DELIVERY';

export class CrawldError extends Error {
  readonly code: ErrorCode = 'CRAWLD_ERR';
  readonly retryable: boolean = false;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A config or argument problem. `issues` lists each bad field as `path: message`. */
export class ConfigError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CONFIG';
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n  ${issues.join('\n  ')}`);
  }
}

export class InvalidUrlError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_INVALID_URL';
}

/**
 * What a validator (core/check.ts) refused: the option by the name the algorithm gives it
 * (`target.ratio`, `maxPauseMs`), the value, and the bound it broke or the values it may take.
 */
export interface ArgumentProblem {
  readonly option: string;
  readonly value: unknown;
  /** A number's bound; its `minOf` / `maxOf` name the options that set an end. */
  readonly bound?: Bound;
  readonly oneOf?: readonly string[];
}

/**
 * A caller passed something the code cannot take. From an option check, `option`, `value`
 * and `bound` (or `oneOf`) say what and why, so the config check names the field without
 * reading the message; other misuse leaves them undefined.
 */
export class InvalidArgumentError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_INVALID_ARG';
  readonly option: string | undefined;
  readonly value: unknown;
  readonly bound: Bound | undefined;
  readonly oneOf: readonly string[] | undefined;
  constructor(message: string, options?: { cause?: unknown; problem?: ArgumentProblem }) {
    super(message, options);
    const problem = options?.problem;
    this.option = problem?.option;
    this.value = problem?.value;
    this.bound = problem?.bound;
    this.oneOf = problem?.oneOf;
  }
}

/** A command-line usage error; exits 2 like a config error: the operator typed something wrong. */
export class UsageError extends InvalidArgumentError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_USAGE';
}

/** A JSON path in a job's extract rules that does not parse. */
export class JsonPathError extends InvalidArgumentError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_JSON_PATH';
}

/** Another live process holds the data dir (one daemon per data dir). */
export class DataDirLockedError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_DATA_DIR_LOCKED';
}

/** The daemon's admin API refused or could not be reached: a runtime failure (exit 1), not bad usage. */
export class AdminApiError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_ADMIN_API';
}

/**
 * Redis could not be reached or cannot serve now (connection refused or lost, retries
 * exhausted, LOADING after a restart, READONLY replica, cluster down). Retryable: the
 * daemon treats it as "frontier unavailable" and tries again later; no state was changed
 * by the failed call unless the script had already run (then it is safe to repeat:
 * enqueue dedupes, and ack/retry/deadLetter answer false on a consumed token).
 */
export class RedisUnavailableError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIS_UNAVAILABLE';
  override readonly retryable: boolean = true;
}

/** The data under a Redis frontier's prefix was written in a layout this version does not read. */
export class RedisLayoutError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIS_LAYOUT';
}

/** Base of everything that goes wrong while fetching one URL. */
export class FetchError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_FETCH';
  /** Short, bounded-cardinality reason used in metrics labels and dead-letter records. */
  readonly reason: string = 'fetch_error';
}

export class RetryableFetchError extends FetchError {
  override readonly retryable: boolean = true;
}

export class ConnectTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CONNECT_TIMEOUT';
  override readonly reason = 'connect_timeout';
}
export class HeadersTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_HEADERS_TIMEOUT';
  override readonly reason = 'headers_timeout';
}
export class BodyTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BODY_TIMEOUT';
  override readonly reason = 'body_timeout';
}
/** Connection refused, reset, DNS failure, socket closed mid-body. */
export class ConnectionError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CONNECTION';
  override readonly reason = 'connection';
}

/** Why a TLS connection was refused: bounded reasons for dead letters, logs and metrics. */
export type TlsReason = 'tls_untrusted' | 'tls_expired' | 'tls_hostname' | 'tls_handshake';
export const TLS_REASONS: readonly TlsReason[] = [
  'tls_untrusted',
  'tls_expired',
  'tls_hostname',
  'tls_handshake',
];

/**
 * The server's certificate was refused or the handshake failed. Not retried: a certificate
 * does not become trusted on the next attempt (a private CA goes in fetch.tls.ca).
 */
export class TlsError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_TLS';
  constructor(
    override readonly reason: TlsReason,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

export class BodyTooLargeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BODY_TOO_LARGE';
  override readonly reason = 'body_too_large';
}
/** The header block outgrew undici's limit (16 KiB): a server streaming headers forever. */
export class HeadersTooLargeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_HEADERS_TOO_LARGE';
  override readonly reason = 'headers_too_large';
}
export class DecodedTooLargeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_DECODED_TOO_LARGE';
  override readonly reason = 'decoded_too_large';
}
export class DecodeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_DECODE';
  override readonly reason = 'decode';
}
export class TooManyRedirectsError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_TOO_MANY_REDIRECTS';
  override readonly reason = 'too_many_redirects';
}
/** A redirect leads out of the job's scope (another site): not followed, the page is skipped. */
export class RedirectOutOfScopeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIRECT_OUT_OF_SCOPE';
  override readonly reason = 'redirect_out_of_scope';
}
export class RedirectLoopError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIRECT_LOOP';
  override readonly reason = 'redirect_loop';
}
/** The target resolves to an address the SSRF guard refuses (loopback, private, link-local, ...). */
export class BlockedAddressError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BLOCKED_ADDRESS';
  override readonly reason = 'blocked_address';
}
/**
 * The proxy failed, not the target: down, closed the connection, refused CONNECT, or wants
 * credentials (reason proxy_auth). Retried, through another proxy if there is one; never
 * charged to the target host's breaker or limiter.
 */
export class ProxyError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_PROXY';
  override readonly reason: 'proxy_error' | 'proxy_auth';
  constructor(message: string, auth: boolean, options?: ErrorOptions) {
    super(message, options);
    this.reason = auth ? 'proxy_auth' : 'proxy_error';
  }
}
export class ContentTypeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CONTENT_TYPE';
  override readonly reason = 'content_type';
}
/** The request was aborted by us (shutdown, drain deadline): never charged as an attempt. */
export class AbortedError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_ABORTED';
  override readonly reason = 'aborted';
}

/** An HTTP status the crawl treats as failure. Retryable for 408, 429 and 5xx. */
export class HttpStatusError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_HTTP_STATUS';
  override readonly retryable: boolean;
  override readonly reason: string;
  constructor(
    readonly status: number,
    readonly retryAfter?: string,
  ) {
    super(`HTTP ${status}`);
    this.retryable = status === 408 || status === 429 || status >= 500;
    this.reason = `http_${status}`;
  }
}

/**
 * A page nested deeper than any real page (core/html-depth.ts): parsing it would block the
 * event loop for minutes, so it is skipped with this reason instead.
 */
export class HtmlTooDeepError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_HTML_TOO_DEEP';
  readonly reason = 'html_too_deep';
}

export function errorCode(err: unknown): ErrorCode {
  return err instanceof CrawldError ? err.code : 'CRAWLD_ERR_UNKNOWN';
}

/** The whole request (connect, redirects, headers and body) outlived its budget, e.g. a slow drip. */
export class TotalTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_TOTAL_TIMEOUT';
  override readonly reason = 'total_timeout';
}

/**
 * The request outlived its host's learned timeout in `phase` (core/host-timeout.ts) and was
 * given up as hung: retried like any timeout, and told to the host's breaker and concurrency
 * limit at that moment rather than when the configured timeout would have fired.
 */
export class HungRequestError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_HUNG';
  override readonly reason = 'hung';
  constructor(
    readonly phase: TimeoutPhase,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** A sink could not store records (database error that is not transient, or closed while waiting). */
export class SinkError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_SINK';
}

/** A change sink gave up delivering a change record after its retries; the page is dead-lettered. */
export class ChangeDeliveryError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CHANGE_DELIVERY';
  /** Bounded: the dead-letter reason and a metrics label. */
  readonly reason: string = 'change_delivery';
}

/** A browser render (document, scripts, waits) outlived jobs[].render.timeoutMs: `networkidle` never came. */
export class RenderTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_RENDER_TIMEOUT';
  override readonly reason = 'render_timeout';
}
/** The page's tab or the whole browser crashed (out of memory, killed): retried in a fresh one. */
export class RenderCrashError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_RENDER_CRASH';
  override readonly reason = 'render_crash';
}
/** Chromium could not be started (missing binary, out of memory): the task waits and is retried. */
export class BrowserUnavailableError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BROWSER_UNAVAILABLE';
  override readonly reason = 'browser_unavailable';
}
/** A page tried to navigate to a scheme other than http(s) (file:, data:, javascript:, ...). */
export class BlockedSchemeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BLOCKED_SCHEME';
  override readonly reason = 'blocked_scheme';
}
