import type { Clock } from '../../core/clock.js';
import type { HostBackoff } from '../../core/host-backoff.js';
import type { HostLimiters } from '../../core/limiter.js';
import { LruMap } from '../../core/lru-map.js';
import type { HostBreakerRegistry } from '../../ports/breaker.js';
import type {
  Admission,
  ControlPlane,
  FetcherKind,
  HostSnapshot,
  Outcome,
} from '../../ports/control-plane.js';
import type { SyncRateLimiter } from '../../ports/rate-limiter.js';

export interface AdaptiveControlPlaneDeps {
  readonly clock: Clock;
  readonly limiters: HostLimiters;
  readonly rate: SyncRateLimiter;
  readonly backoff: HostBackoff;
  readonly breakers: HostBreakerRegistry;
  readonly minDelayMs: number;
}

/** Its timer may fire late. */
const MIN_BREAKER_DEFER_MS = 50;

/**
 * The gate in front of every request, cheapest refusal first, nothing consumed until all pass:
 * paused or breaker open → defer; politeness → wait; concurrency → full; token buckets → wait;
 * half-open probe slot → full. A deferred host's tasks go back, so a broken host holds no buffer.
 */
export const POLITE_HOSTS = 10_000;

export class AdaptiveControlPlane implements ControlPlane {
  readonly #d: AdaptiveControlPlaneDeps;
  /**
   * Bounded, but a host inside its gap is never forgotten (its next request would go at once):
   * past the bound by at most the requests started in one gap.
   */
  readonly #polite: LruMap<string, { lastStart: number; delayMs: number }>;

  constructor(deps: AdaptiveControlPlaneDeps) {
    this.#d = deps;
    this.#polite = new LruMap(
      POLITE_HOSTS,
      (p) => deps.clock.monotonic() - p.lastStart >= Math.max(deps.minDelayMs, p.delayMs),
    );
    deps.breakers.onTransition((t) => {
      if (t.from === 'halfOpen' && t.to === 'closed') deps.limiters.resume(t.host);
    });
  }

  admit(host: string, kind?: FetcherKind): Admission {
    const d = this.#d;
    const now = d.clock.now();
    const pausedUntil = d.backoff.hostPausedUntil(host);
    if (pausedUntil !== undefined && pausedUntil > now) {
      return { kind: 'defer', delayMs: pausedUntil - now, reason: 'host_paused' };
    }
    const breaker = d.breakers.get(host);
    // Until the breaker reads half-open, so the probe goes out on time (a fixed recheck cost seconds).
    if (breaker.state === 'open')
      return {
        kind: 'defer',
        delayMs: Math.max(MIN_BREAKER_DEFER_MS, breaker.retryInMs),
        reason: 'breaker_open',
      };

    const mono = d.clock.monotonic();
    const polite = this.#polite.get(host);
    const gap = Math.max(d.minDelayMs, polite?.delayMs ?? 0);
    if (polite && gap > 0 && mono - polite.lastStart < gap) {
      return { kind: 'wait', delayMs: Math.ceil(gap - (mono - polite.lastStart)), reason: 'politeness' };
    }
    if (d.limiters.inflight >= d.limiters.globalLimit) return { kind: 'full' };
    if (!d.limiters.hasRoom(host, kind)) return { kind: 'full' };
    const rate = d.rate.take(host);
    if (!rate.ok) return { kind: 'wait', delayMs: Math.max(1, Math.ceil(rate.waitMs)), reason: 'rate_limit' };
    if (!breaker.canPass()) return { kind: 'full' };
    const permit = d.limiters.tryAcquire(host, kind);
    if (!permit) {
      breaker.onIgnore();
      return { kind: 'full' };
    }
    if (polite) polite.lastStart = mono;
    else if (gap > 0 || this.#polite.size < POLITE_HOSTS)
      this.#polite.set(host, { lastStart: mono, delayMs: 0 });

    let released = false;
    /** When a hung one failed. */
    let sentAt = mono;
    return {
      kind: 'go',
      permit: {
        release: (outcome: Outcome) => {
          if (released) return;
          released = true;
          this.#report(host, outcome, permit, breaker, sentAt);
        },
        requestStarting: () => {
          if (released) return;
          sentAt = d.clock.monotonic();
          const p = this.#polite.get(host);
          if (p) p.lastStart = Math.max(p.lastStart, sentAt);
        },
      },
    };
  }

  #report(
    host: string,
    outcome: Outcome,
    permit: NonNullable<ReturnType<HostLimiters['tryAcquire']>>,
    breaker: ReturnType<HostBreakerRegistry['get']>,
    sentAt: number,
  ): void {
    const d = this.#d;
    switch (outcome.kind) {
      case 'success':
        d.backoff.onSuccess(host);
        breaker.onSuccess();
        permit.success({
          rttMs: outcome.ttfbMs,
          lagMs: outcome.lagMs,
          queuedMs: outcome.queuedMs,
        });
        return;
      case 'dropped':
        // 429 and 503 say "slow down": pause the whole host, not just this URL.
        if (outcome.status === 429 || outcome.status === 503)
          d.backoff.onThrottle(host, outcome.retryAfterMs);
        breaker.onFailure();
        permit.dropped();
        return;
      case 'hung':
        // As a 500 failed when it was sent, so a hung probe costs no more than a 500; a hang
        // while the host answers others (a tail) counts for the failure rate only.
        breaker.onFailure({
          agoMs: Math.max(0, d.clock.monotonic() - sentAt),
          tail: d.limiters.lastAnswerAt(host) >= sentAt,
        });
        permit.hung(breaker.state !== 'closed');
        return;
      case 'failure':
        breaker.onFailure();
        // A lone 500 says nothing about load; in an outage, cut so fewer wait for the host's return.
        if (breaker.state === 'closed') permit.ignore();
        else permit.dropped();
        return;
      default:
        breaker.onIgnore();
        permit.ignore();
    }
  }

  /** On top of the configured minimum gap. */
  setCrawlDelay(host: string, delayMs: number): void {
    const p = this.#polite.get(host);
    if (p) p.delayMs = delayMs;
    else this.#polite.set(host, { lastStart: Number.NEGATIVE_INFINITY, delayMs });
  }

  onAvailable(listener: () => void): () => void {
    return this.#d.limiters.onAvailable(() => listener());
  }

  fetcherChanged(host: string, kind: FetcherKind): void {
    this.#d.limiters.setKind(host, kind);
  }

  hostLimit(host: string): number {
    return this.#d.limiters.limitOf(host);
  }

  breakerRetryInMs(host: string): number {
    const breaker = this.#d.breakers.get(host);
    return breaker.state === 'open' ? breaker.retryInMs : 0;
  }

  inflight(): number {
    return this.#d.limiters.inflight;
  }

  globalLimit(): number {
    return this.#d.limiters.globalLimit;
  }

  *hostSnapshots(): Iterable<HostSnapshot> {
    const now = this.#d.clock.now();
    for (const h of this.#d.limiters.hosts()) {
      const pausedUntil = this.#d.backoff.hostPausedUntil(h.host);
      const breaker = this.#d.breakers.get(h.host).state;
      yield pausedUntil !== undefined && pausedUntil > now
        ? { ...h, breaker, pausedUntil }
        : { ...h, breaker };
    }
  }
}
