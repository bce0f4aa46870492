import { type Bound, NON_NEGATIVE_INT, POSITIVE_INT, POSITIVE_MS } from './bound.js';
import { DEFAULT_MAX_REFRESH_DELAY_SECONDS } from './refresh.js';

/** The fetcher's number options, defaults and bounds written once; timeouts stay within Node's largest timer. */
export interface FetchLimits {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  /** Whole fetch, redirects included: a server dripping bytes is still cut off. */
  readonly totalTimeoutMs: number;
  readonly maxBodyBytes: number;
  /** After content decoding: decompression bombs stop early. */
  readonly maxDecodedBytes: number;
  readonly maxRedirects: number;
  /** Refresh delays up to this are followed as redirects (Scrapy's METAREFRESH_MAXDELAY). */
  readonly maxRefreshDelaySeconds: number;
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
