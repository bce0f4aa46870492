import { type Bound, NON_NEGATIVE_INT, POSITIVE_INT, POSITIVE_MS } from './bound.js';
import { DEFAULT_MAX_REFRESH_DELAY_SECONDS } from './refresh.js';

/**
 * The fetcher's number options (adapters/fetch/options.ts, the config's fetch section): their
 * defaults and bounds, written once. Timeouts become timers, so they stay within Node's largest.
 */
export interface FetchLimits {
  readonly connectTimeoutMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
  readonly totalTimeoutMs: number;
  readonly maxBodyBytes: number;
  readonly maxDecodedBytes: number;
  readonly maxRedirects: number;
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
