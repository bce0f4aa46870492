import type { Bound } from './bound.js';
import type { TimeoutPhase } from './timeout-phase.js';

/** Every error has a stable `code`; retry reads `retryable`, the CLI's exit status reads `code`, never the message. */

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

/** `issues` lists each bad field as `path: message`. */
export class ConfigError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CONFIG';
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n  ${issues.join('\n  ')}`);
  }
}

export class InvalidUrlError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_INVALID_URL';
}

export interface ArgumentProblem {
  readonly option: string;
  readonly value: unknown;
  readonly bound?: Bound;
  readonly oneOf?: readonly string[];
}

/** From an option check, `option`, `value` and `bound` say why, so the config names the field without the message. */
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

/** Exits 2 like a config error. */
export class UsageError extends InvalidArgumentError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_USAGE';
}

export class JsonPathError extends InvalidArgumentError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_JSON_PATH';
}

export class DataDirLockedError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_DATA_DIR_LOCKED';
}

/** A runtime failure (exit 1), not bad usage. */
export class AdminApiError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_ADMIN_API';
}

/** Retryable: the daemon retries later; a repeated script is safe (enqueue dedupes, stale tokens answer false). */
export class RedisUnavailableError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIS_UNAVAILABLE';
  override readonly retryable: boolean = true;
}

export class RedisLayoutError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIS_LAYOUT';
}

export class FetchError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_FETCH';
  /** Bounded: a metrics label and the dead-letter reason. */
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
export class ConnectionError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CONNECTION';
  override readonly reason = 'connection';
}

export type TlsReason = 'tls_untrusted' | 'tls_expired' | 'tls_hostname' | 'tls_handshake';
export const TLS_REASONS: readonly TlsReason[] = [
  'tls_untrusted',
  'tls_expired',
  'tls_hostname',
  'tls_handshake',
];

/** Not retried: a certificate does not become trusted on the next attempt. */
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
export class RedirectOutOfScopeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIRECT_OUT_OF_SCOPE';
  override readonly reason = 'redirect_out_of_scope';
}
export class RedirectLoopError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_REDIRECT_LOOP';
  override readonly reason = 'redirect_loop';
}
export class BlockedAddressError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BLOCKED_ADDRESS';
  override readonly reason = 'blocked_address';
}
/** The proxy failed, not the target: retried through another proxy, never charged to the host. */
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
/** Never charged as an attempt. */
export class AbortedError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_ABORTED';
  override readonly reason = 'aborted';
}

/** Retryable for 408, 429 and 5xx. */
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

/** Parsing it would block the event loop for minutes (core/html-depth.ts). */
export class HtmlTooDeepError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_HTML_TOO_DEEP';
  readonly reason = 'html_too_deep';
}

export function errorCode(err: unknown): ErrorCode {
  return err instanceof CrawldError ? err.code : 'CRAWLD_ERR_UNKNOWN';
}

export class TotalTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_TOTAL_TIMEOUT';
  override readonly reason = 'total_timeout';
}

/** Told to the host's breaker and limit at once, not when the configured timeout would fire. */
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

export class SinkError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_SINK';
}

export class ChangeDeliveryError extends CrawldError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_CHANGE_DELIVERY';
  readonly reason: string = 'change_delivery';
}

export class RenderTimeoutError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_RENDER_TIMEOUT';
  override readonly reason = 'render_timeout';
}
export class RenderCrashError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_RENDER_CRASH';
  override readonly reason = 'render_crash';
}
export class BrowserUnavailableError extends RetryableFetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BROWSER_UNAVAILABLE';
  override readonly reason = 'browser_unavailable';
}
export class BlockedSchemeError extends FetchError {
  override readonly code: ErrorCode = 'CRAWLD_ERR_BLOCKED_SCHEME';
  override readonly reason = 'blocked_scheme';
}
