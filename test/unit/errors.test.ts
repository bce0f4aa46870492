import { describe, expect, it } from 'vitest';
import { exitStatusOf } from '../../src/cli/exit-status.js';
import * as errors from '../../src/core/errors.js';
import {
  AbortedError,
  AdminApiError,
  BlockedAddressError,
  BlockedSchemeError,
  BodyTimeoutError,
  BodyTooLargeError,
  BrowserUnavailableError,
  ChangeDeliveryError,
  ConfigError,
  ConnectionError,
  ConnectTimeoutError,
  ContentTypeError,
  CrawldError,
  DataDirLockedError,
  DecodedTooLargeError,
  DecodeError,
  type ErrorCode,
  FetchError,
  HeadersTimeoutError,
  HeadersTooLargeError,
  HtmlTooDeepError,
  HttpStatusError,
  HungRequestError,
  InvalidArgumentError,
  InvalidUrlError,
  JsonPathError,
  ProxyError,
  RedirectLoopError,
  RedirectOutOfScopeError,
  RedisLayoutError,
  RedisUnavailableError,
  RenderCrashError,
  RenderTimeoutError,
  RetryableFetchError,
  SinkError,
  TlsError,
  TooManyRedirectsError,
  TotalTimeoutError,
  UsageError,
} from '../../src/core/errors.js';

/**
 * Every error class pinned, as undici's test/errors.js does: its name, code, parent,
 * whether it is retryable, its bounded reason, and the CLI's exit status for it. A code is
 * a public contract (logs, the CLI's exit status); changing one must change this table.
 */
type Row = readonly [
  cls: abstract new (...args: never[]) => CrawldError,
  make: () => CrawldError,
  code: ErrorCode,
  parent: abstract new (...args: never[]) => Error,
  retryable: boolean,
  reason: string | undefined,
  exit: 1 | 2,
];

const m = 'message';
const TABLE: readonly Row[] = [
  [CrawldError, () => new CrawldError(m), 'CRAWLD_ERR', Error, false, undefined, 1],
  [ConfigError, () => new ConfigError(['a: bad']), 'CRAWLD_ERR_CONFIG', CrawldError, false, undefined, 2],
  [InvalidUrlError, () => new InvalidUrlError(m), 'CRAWLD_ERR_INVALID_URL', CrawldError, false, undefined, 2],
  [
    InvalidArgumentError,
    () => new InvalidArgumentError(m),
    'CRAWLD_ERR_INVALID_ARG',
    CrawldError,
    false,
    undefined,
    2,
  ],
  [UsageError, () => new UsageError(m), 'CRAWLD_ERR_USAGE', InvalidArgumentError, false, undefined, 2],
  [
    JsonPathError,
    () => new JsonPathError(m),
    'CRAWLD_ERR_JSON_PATH',
    InvalidArgumentError,
    false,
    undefined,
    1,
  ],
  [
    DataDirLockedError,
    () => new DataDirLockedError(m),
    'CRAWLD_ERR_DATA_DIR_LOCKED',
    CrawldError,
    false,
    undefined,
    1,
  ],
  [AdminApiError, () => new AdminApiError(m), 'CRAWLD_ERR_ADMIN_API', CrawldError, false, undefined, 1],
  [
    RedisLayoutError,
    () => new RedisLayoutError(m),
    'CRAWLD_ERR_REDIS_LAYOUT',
    CrawldError,
    false,
    undefined,
    1,
  ],
  [
    RedisUnavailableError,
    () => new RedisUnavailableError(m),
    'CRAWLD_ERR_REDIS_UNAVAILABLE',
    CrawldError,
    true,
    undefined,
    1,
  ],
  [FetchError, () => new FetchError(m), 'CRAWLD_ERR_FETCH', CrawldError, false, 'fetch_error', 1],
  [
    RetryableFetchError,
    () => new RetryableFetchError(m),
    'CRAWLD_ERR_FETCH',
    FetchError,
    true,
    'fetch_error',
    1,
  ],
  [
    ConnectTimeoutError,
    () => new ConnectTimeoutError(m),
    'CRAWLD_ERR_CONNECT_TIMEOUT',
    RetryableFetchError,
    true,
    'connect_timeout',
    1,
  ],
  [
    HeadersTimeoutError,
    () => new HeadersTimeoutError(m),
    'CRAWLD_ERR_HEADERS_TIMEOUT',
    RetryableFetchError,
    true,
    'headers_timeout',
    1,
  ],
  [
    BodyTimeoutError,
    () => new BodyTimeoutError(m),
    'CRAWLD_ERR_BODY_TIMEOUT',
    RetryableFetchError,
    true,
    'body_timeout',
    1,
  ],
  [
    TotalTimeoutError,
    () => new TotalTimeoutError(m),
    'CRAWLD_ERR_TOTAL_TIMEOUT',
    RetryableFetchError,
    true,
    'total_timeout',
    1,
  ],
  [
    HungRequestError,
    () => new HungRequestError('headers', m),
    'CRAWLD_ERR_HUNG',
    RetryableFetchError,
    true,
    'hung',
    1,
  ],
  [
    ConnectionError,
    () => new ConnectionError(m),
    'CRAWLD_ERR_CONNECTION',
    RetryableFetchError,
    true,
    'connection',
    1,
  ],
  [TlsError, () => new TlsError('tls_expired', m), 'CRAWLD_ERR_TLS', FetchError, false, 'tls_expired', 1],
  [
    BodyTooLargeError,
    () => new BodyTooLargeError(m),
    'CRAWLD_ERR_BODY_TOO_LARGE',
    FetchError,
    false,
    'body_too_large',
    1,
  ],
  [
    HeadersTooLargeError,
    () => new HeadersTooLargeError(m),
    'CRAWLD_ERR_HEADERS_TOO_LARGE',
    FetchError,
    false,
    'headers_too_large',
    1,
  ],
  [
    DecodedTooLargeError,
    () => new DecodedTooLargeError(m),
    'CRAWLD_ERR_DECODED_TOO_LARGE',
    FetchError,
    false,
    'decoded_too_large',
    1,
  ],
  [DecodeError, () => new DecodeError(m), 'CRAWLD_ERR_DECODE', FetchError, false, 'decode', 1],
  [
    TooManyRedirectsError,
    () => new TooManyRedirectsError(m),
    'CRAWLD_ERR_TOO_MANY_REDIRECTS',
    FetchError,
    false,
    'too_many_redirects',
    1,
  ],
  [
    RenderTimeoutError,
    () => new RenderTimeoutError(m),
    'CRAWLD_ERR_RENDER_TIMEOUT',
    RetryableFetchError,
    true,
    'render_timeout',
    1,
  ],
  [
    RenderCrashError,
    () => new RenderCrashError(m),
    'CRAWLD_ERR_RENDER_CRASH',
    RetryableFetchError,
    true,
    'render_crash',
    1,
  ],
  [
    BrowserUnavailableError,
    () => new BrowserUnavailableError(m),
    'CRAWLD_ERR_BROWSER_UNAVAILABLE',
    RetryableFetchError,
    true,
    'browser_unavailable',
    1,
  ],
  [
    BlockedSchemeError,
    () => new BlockedSchemeError(m),
    'CRAWLD_ERR_BLOCKED_SCHEME',
    FetchError,
    false,
    'blocked_scheme',
    1,
  ],
  [
    RedirectOutOfScopeError,
    () => new RedirectOutOfScopeError(m),
    'CRAWLD_ERR_REDIRECT_OUT_OF_SCOPE',
    FetchError,
    false,
    'redirect_out_of_scope',
    1,
  ],
  [
    RedirectLoopError,
    () => new RedirectLoopError(m),
    'CRAWLD_ERR_REDIRECT_LOOP',
    FetchError,
    false,
    'redirect_loop',
    1,
  ],
  [
    BlockedAddressError,
    () => new BlockedAddressError(m),
    'CRAWLD_ERR_BLOCKED_ADDRESS',
    FetchError,
    false,
    'blocked_address',
    1,
  ],
  [
    ProxyError,
    () => new ProxyError(m, false),
    'CRAWLD_ERR_PROXY',
    RetryableFetchError,
    true,
    'proxy_error',
    1,
  ],
  [
    ContentTypeError,
    () => new ContentTypeError(m),
    'CRAWLD_ERR_CONTENT_TYPE',
    FetchError,
    false,
    'content_type',
    1,
  ],
  [AbortedError, () => new AbortedError(m), 'CRAWLD_ERR_ABORTED', FetchError, false, 'aborted', 1],
  [
    HttpStatusError,
    () => new HttpStatusError(503),
    'CRAWLD_ERR_HTTP_STATUS',
    FetchError,
    true,
    'http_503',
    1,
  ],
  [
    HtmlTooDeepError,
    () => new HtmlTooDeepError(m),
    'CRAWLD_ERR_HTML_TOO_DEEP',
    CrawldError,
    false,
    'html_too_deep',
    1,
  ],
  [SinkError, () => new SinkError(m), 'CRAWLD_ERR_SINK', CrawldError, false, undefined, 1],
  [
    ChangeDeliveryError,
    () => new ChangeDeliveryError(m),
    'CRAWLD_ERR_CHANGE_DELIVERY',
    CrawldError,
    false,
    'change_delivery',
    1,
  ],
];

describe('error classes', () => {
  it.each(TABLE.map((r) => [r[0].name, ...r] as const))(
    '%s',
    (_name, cls, make, code, parent, retryable, reason, exit) => {
      const err = make();
      expect(err).toBeInstanceOf(cls);
      expect(err).toBeInstanceOf(parent);
      expect(Object.getPrototypeOf(cls.prototype)).toBe(parent.prototype);
      expect(err.name).toBe(cls.name);
      expect(err.code).toBe(code);
      expect(err.retryable).toBe(retryable);
      expect((err as { reason?: string }).reason).toBe(reason);
      expect(errors.errorCode(err)).toBe(code);
      expect(exitStatusOf(err.code)).toBe(exit);
      expect(err.stack).toContain(cls.name);
    },
  );

  it('covers every error class the module exports', () => {
    const exported = Object.values(errors).filter(
      (v): v is typeof CrawldError => typeof v === 'function' && v.prototype instanceof Error,
    );
    exported.push(CrawldError);
    const pinned = new Set(TABLE.map((r) => r[0]));
    expect(exported.filter((c) => !pinned.has(c)).map((c) => c.name)).toEqual([]);
  });

  it('keeps the per-status and per-cause variants apart', () => {
    expect(new HttpStatusError(404).retryable).toBe(false);
    expect(new HttpStatusError(408).retryable).toBe(true);
    expect(new HttpStatusError(429).reason).toBe('http_429');
    expect(new ProxyError(m, true).reason).toBe('proxy_auth');
    expect(new HungRequestError('body', m).phase).toBe('body');
    expect(new ConfigError(['a: x', 'b: y']).issues).toEqual(['a: x', 'b: y']);
  });

  it('gives anything else the unknown code', () => {
    expect(errors.errorCode(new Error('x'))).toBe('CRAWLD_ERR_UNKNOWN');
    expect(errors.errorCode('x')).toBe('CRAWLD_ERR_UNKNOWN');
    expect(exitStatusOf('CRAWLD_ERR_UNKNOWN')).toBe(1);
  });
});
