import { type Bound, NON_NEGATIVE_INT, POSITIVE_INT, POSITIVE_MS } from './bound.js';
import { DEFAULT_MAX_REFRESH_DELAY_SECONDS } from './refresh.js';

/**
 * The fetcher's number options (adapters/fetch/fetch-options.ts, the config's fetch section): their
 * defaults and bounds, written once. Timeouts become timers, so they stay within Node's largest.
 */
export interface FetchLimits {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  /** Longest silence allowed between two body chunks. */
  readonly bodyTimeoutMs: number;
  /** Budget for the whole fetch including redirects, so a server dripping bytes is still cut off. */
  readonly totalTimeoutMs: number;
  /** Cap on compressed bytes received, enforced while streaming. */
  readonly maxBodyBytes: number;
  /** Cap on bytes after content decoding, so decompression bombs stop early. */
  readonly maxDecodedBytes: number;
  readonly maxRedirects: number;
  /**
   * A 2xx HTML page's `<meta http-equiv="refresh">` or a 2xx `Refresh` header with a delay of
   * at most this many seconds is followed as a redirect (the same hop budget, address guard and
   * scope); a longer delay leaves the page as it is. Scrapy's METAREFRESH_MAXDELAY.
   */
  readonly maxRefreshDelaySeconds: number;
  /** Keep-alive connections per origin (the config's default is concurrency.maxPerHost). */
  readonly connectionsPerHost: number;
}

const MiB = 1024 * 1024;

export const fetchLimitDefaults: Omit<FetchLimits, 'connectionsPerHost'> = Object.freeze({
  connectTimeoutMs: 10_000,
  headersTimeoutMs: 15_000,
  bodyTimeoutMs: 15_000,
  totalTimeoutMs: 60_000,
  maxBodyBytes: 10 * MiB,
  maxDecodedBytes: 20 * MiB,
  maxRedirects: 10,
  maxRefreshDelaySeconds: DEFAULT_MAX_REFRESH_DELAY_SECONDS,
});

export const FETCH_LIMIT_BOUNDS = Object.freeze({
  connectTimeoutMs: POSITIVE_MS,
  headersTimeoutMs: POSITIVE_MS,
  bodyTimeoutMs: POSITIVE_MS,
  totalTimeoutMs: POSITIVE_MS,
  maxBodyBytes: POSITIVE_INT,
  maxDecodedBytes: POSITIVE_INT,
  maxRedirects: NON_NEGATIVE_INT,
  maxRefreshDelaySeconds: { min: 0 },
  connectionsPerHost: POSITIVE_INT,
} as const satisfies Record<keyof FetchLimits, Bound>);
