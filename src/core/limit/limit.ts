/** A concurrency-limit algorithm (Netflix's `Limit`): samples in, a number out. */
export interface LimitSample {
  /** Time to response headers, ms. */
  readonly rttMs: number;
  /** Including itself. */
  readonly inflight: number;
  readonly dropped: boolean;
  /** How much of rttMs our own process added. @default 0 */
  readonly lagMs?: number;
  /** This response's own wait in our event loop; when given, subtracted instead of lagMs. */
  readonly queuedMs?: number;
  readonly startedAt?: number;
}

export interface LimitAlgorithm {
  readonly limit: number;
  onSample(sample: LimitSample): void;
  onChange(listener: (limit: number, reason?: string) => void): () => void;
  /** The host is back after an outage: its cuts say nothing about capacity, so grow fast again. */
  resume?(): void;
}
