/**
 * Label values known in advance, so every series exists at 0 from the first scrape: `rate()` of
 * a missing series is nothing, which silently disables alerts. A new reason goes here and in
 * docs/metrics.md.
 */
import { TLS_REASONS } from '../core/errors.js';
import { TIMEOUT_PHASES as TIMEOUT_PHASE_LIST } from '../core/timeout-phase.js';

/** The browser path's own failures (adapters/fetch/browser, docs/browser.md). */
const BROWSER_ERROR_REASONS = [
  'render_timeout',
  'render_crash',
  'browser_unavailable',
  'blocked_scheme',
] as const;

export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx', 'other'] as const;

export const PAGE_RESULTS = ['ok', 'failed', 'skipped'] as const;

/** crawld_fetch_errors_total{reason}: the `reason` of each FetchError class (src/core/errors.ts). */
export const FETCH_ERROR_REASONS = [
  'connect_timeout',
  'headers_timeout',
  'body_timeout',
  'total_timeout',
  'connection',
  'body_too_large',
  'headers_too_large',
  'decoded_too_large',
  'decode',
  'too_many_redirects',
  'redirect_loop',
  'blocked_address',
  'content_type',
  'aborted',
  'hung',
  'fetch_error',
  ...TLS_REASONS,
  ...BROWSER_ERROR_REASONS,
] as const;

/** HTTP statuses the crawl retries (HttpStatusError: 408, 429, 5xx); reasons are `http_NNN`. */
const RETRIED_STATUSES = ['http_408', 'http_429', 'http_500', 'http_502', 'http_503', 'http_504'] as const;

/** crawld_retries_total{reason}: retryable fetch errors and retried statuses. */
export const RETRY_REASONS = [
  'connect_timeout',
  'headers_timeout',
  'body_timeout',
  'total_timeout',
  'hung',
  'connection',
  ...RETRIED_STATUSES,
  'render_timeout',
  'render_crash',
  'browser_unavailable',
] as const;

/** crawld_dead_letters_total{reason}: retries exhausted, or a failure not worth retrying. */
export const DEAD_LETTER_REASONS = [
  ...RETRY_REASONS,
  'body_too_large',
  'headers_too_large',
  'decoded_too_large',
  'decode',
  'too_many_redirects',
  'redirect_loop',
  'blocked_address',
  'fetch_error',
  ...TLS_REASONS,
  'http_304',
  'http_400',
  'http_401',
  'http_403',
  'http_404',
  'http_410',
  'change_delivery',
  'blocked_scheme',
] as const;

export const SKIP_REASONS = [
  'robots',
  'content_type',
  'html_too_deep',
  'noindex',
  'redirect_out_of_scope',
  'session_like',
  'near_duplicate_series',
] as const;

/** crawld_trap_urls_total{reason} (core/traps/trap-options.ts). */
export { TRAP_REASONS } from '../core/traps/trap-options.js';

/** crawld_trap_rules_learned_total{kind}. */
export const TRAP_LEARNED_KINDS = ['param', 'pattern', 'soft_404'] as const;

/** crawld_deferred_total{reason}: the scheduler's hand-backs (src/engine/scheduler/scheduler.ts, adaptive-control-plane.ts). */
export const DEFER_REASONS = [
  'breaker_open',
  'host_paused',
  'paused',
  'shutdown',
  'lease_expiring',
  'work_sharing',
  'rate_limit',
  'politeness',
  'robots_unreachable',
] as const;

/** crawld_rate_limit_waits_total{reason}, crawld_rate_limit_wait_seconds_total{reason}. */
export const WAIT_REASONS = ['rate_limit', 'politeness'] as const;

export const LINK_RESULTS = ['added', 'duplicate', 'dropped', 'out_of_scope', 'over_cap'] as const;

/** crawld_host_timeout_seconds{phase}, and crawld_request_timeouts_total{phase} of learned timeouts. */
export const TIMEOUT_PHASES = TIMEOUT_PHASE_LIST;

/** crawld_request_timeouts_total{phase} of configured timeouts: the phases, and the whole fetch. */
export const CONFIGURED_TIMEOUT_PHASES = [...TIMEOUT_PHASE_LIST, 'total'] as const;

/** crawld_request_timeouts_total{timeout}: the host's learned timeout, or the configured one. */
export const TIMEOUT_KINDS = ['learned', 'configured'] as const;

export const HEDGE_RESULTS = ['won', 'lost'] as const;

/** The host label every host carries until it earns its own name (src/observe/host-labels.ts). */
/** WARC-Type values the WARC sink writes (crawld_warc_records_total{type}). */
export const WARC_RECORD_TYPES = ['warcinfo', 'request', 'response', 'revisit'] as const;

export const OTHER_HOST = 'other';
