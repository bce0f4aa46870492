/**
 * Per-host circuit breakers. The scheduler asks canPass() before leasing work for a host and
 * reports the outcome of every request it started after a true answer. Two implementations:
 * core/host-breakers.ts (pure policy, injected clock) and adapters/breaker/opossum-breaker.ts.
 */
export type BreakerState = 'closed' | 'open' | 'halfOpen';

export interface BreakerTransition {
  readonly host: string;
  readonly from: BreakerState;
  readonly to: BreakerState;
}

/** How a failure happened, when not as a plain answered failure (a request given up as hung). */
export interface FailureInfo {
  /**
   * How long ago the host failed the call (a request given up as hung failed when it was sent;
   * its timeout only noticed it later): an open time this failure starts counts from then.
   * @default 0
   */
  readonly agoMs?: number;
  /**
   * The host answered other requests since this one was sent (a tail, not an outage): it counts
   * for the failure rate but neither makes nor breaks a run of consecutive failures, since the
   * hangs of a burst of requests expire together, a burst of failures in a row however many
   * answers came between their sending and their expiry. @default false
   */
  readonly tail?: boolean;
}

export interface HostBreaker {
  /** The state now (an open breaker whose reset timeout has passed reads as halfOpen). */
  readonly state: BreakerState;
  /** Open: ms until it reads half-open (the open time grows with consecutive trips). Otherwise 0. */
  readonly retryInMs: number;
  /**
   * May a request go to the host now? Closed: yes. Open: no. Half-open: yes for at most
   * halfOpenMaxProbes requests whose outcome is pending; a true answer reserves that probe,
   * so every true answer must be followed by onSuccess, onFailure or onIgnore.
   */
  canPass(): boolean;
  onSuccess(): void;
  onFailure(failure?: FailureInfo): void;
  /** The request said nothing about the host (aborted by us): frees a probe, counts nothing. */
  onIgnore(): void;
}

export interface HostBreakerRegistry {
  /** The host's breaker, created closed on first use. */
  get(host: string): HostBreaker;
  /** Called on every state change; returns an unsubscribe. */
  onTransition(listener: (transition: BreakerTransition) => void): () => void;
  /** Hosts with state (bounded; closed breakers are forgotten first). */
  readonly size: number;
  /** Releases timers; idempotent. */
  close(): void;
}
