/** Per-host circuit breakers: the scheduler asks canPass() before leasing and reports every outcome after a true answer. */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

export interface BreakerTransition {
  readonly host: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
}

/** How a failure happened, when not a plain answered failure. */
export interface FailureInfo {
  /** A hung request failed when it was sent: the open time counts from then. @default 0 */
  readonly agoMs?: number;
  /** The host answered others since (a tail): counts for the rate, not for a run of consecutive failures. @default false */
  readonly tail?: boolean;
}

export interface HostBreaker {
  /** An open breaker past its reset timeout reads halfOpen. */
  readonly state: BreakerState;
  readonly retryInMs: number;
  /** Half-open: a true answer reserves a probe, so it must be followed by onSuccess, onFailure or onIgnore. */
  canPass(): boolean;
  onSuccess(): void;
  onFailure(failure?: FailureInfo): void;
  /** Aborted by us: frees a probe, counts nothing. */
  onIgnore(): void;
}

export interface HostBreakerRegistry {
  get(host: string): HostBreaker;
  /** Returns an unsubscribe. */
  onTransition(listener: (transition: BreakerTransition) => void): () => void;
  readonly size: number;
  close(): void;
}
