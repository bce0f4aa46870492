/**
 * A concurrency-limit algorithm, apart from whatever enforces it (Netflix concurrency-limits'
 * `Limit`): it only turns samples into a number. ConcurrencyLimiter holds the permits.
 */
export interface LimitSample {
  /** Round-trip time of the request (time to response headers), ms. */
  readonly rttMs: number;
  /** Requests in flight for this limiter when the request started (including itself). */
  readonly inflight: number;
  /** Overload signal: timeout, 429, 503, connection error. Its rttMs is not used. */
  readonly dropped: boolean;
  /**
   * Measured event-loop lag at completion, i.e. how much of rttMs our own process added.
   * @default 0
   */
  readonly lagMs?: number;
  /**
   * This response's own wait inside our event loop, estimated per response (see LoopTurn).
   * When given, it, not lagMs, is subtracted from rttMs; lagMs still decides whether the
   * sample says anything about the server at all.
   */
  readonly queuedMs?: number;
  /** clock.monotonic() when the request started; lets the algorithm skip stale samples. */
  readonly startedAt?: number;
}

export interface LimitAlgorithm {
  readonly limit: number;
  onSample(sample: LimitSample): void;
  /** Called with the new limit (and why, when the algorithm says) whenever it changes; returns an unsubscribe. */
  onChange(listener: (limit: number, reason?: string) => void): () => void;
  /**
   * The host is back after an outage (its breaker closed): the cuts its failures caused say
   * nothing about its capacity, so the algorithm may grow fast again, back to the limit the
   * host last served well at. Optional.
   */
  resume?(): void;
}
