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
  /** In-process (LocalRateLimiter) or shared by several daemons (RedisRateLimiter). */
  readonly rate: SyncRateLimiter;
  readonly backoff: HostBackoff;
  readonly breakers: HostBreakerRegistry;
  /** Minimum gap between two request starts to one host (politeness). */
  readonly minDelayMs: number;
}

/** An open breaker's host is asked again after at least this (its timer may fire late). */
const MIN_BREAKER_DEFER_MS = 50;

/**
 * The gate in front of every request, in this order (cheapest refusal first, nothing
 * consumed until every check has passed):
 *   host paused (Retry-After / 429 backoff) → defer the host's tasks
 *   breaker open                            → defer the host's tasks
 *   politeness delay (min gap, crawl-delay) → wait
 *   concurrency: host limit and global cap  → full (woken when a slot frees)
 *   token buckets (global and per host)     → wait
 *   half-open probe slot                    → full
 * Deferring hands tasks back to the frontier uncharged so a broken host holds no buffer
 * space; waiting keeps them buffered because the wait is short.
 */
/** Hosts whose last request start is remembered for politeness (idle ones beyond are forgotten). */
export const POLITE_HOSTS = 10_000;

export class AdaptiveControlPlane implements ControlPlane {
  readonly #d: AdaptiveControlPlaneDeps;
  /**
   * Per host: last request start (monotonic ms) and crawl-delay from robots.txt. Bounded, but
   * a host still inside its gap is never forgotten (that would let its next request go at
   * once): with more hosts than the bound started within one gap the map grows past it, by at
   * most the requests started in one gap (the global in-flight ceiling bounds those).
   */
  readonly #polite: LruMap<string, { lastStart: number; delayMs: number }>;

  constructor(deps: AdaptiveControlPlaneDeps) {
    this.#d = deps;
    this.#polite = new LruMap(
      POLITE_HOSTS,
      (p) => deps.clock.monotonic() - p.lastStart >= Math.max(deps.minDelayMs, p.delayMs),
    );
    // A probe succeeded after an outage: the host is healthy again at the capacity it had.
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
    // Handed back until the breaker reads half-open, so that the probe goes out on time (the
    // open time is short after a first trip; a fixed recheck here delayed recovery by seconds).
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
    /** When the request went out (the page's, after robots.txt): when a hung one failed. */
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
        // 429 and 503 say "slow down": pause the whole host (until Retry-After, or an
        // exponential pause without it), not just this URL.
        if (outcome.status === 429 || outcome.status === 503)
          d.backoff.onThrottle(host, outcome.retryAfterMs);
        breaker.onFailure();
        permit.dropped();
        return;
      case 'hung':
        // Given up at the host's learned timeout: told now, not when the configured timeout
        // would have fired. To the breaker as a 500 is, as having failed when it was sent: an
        // open time counts from then, so a probe that hung costs the host no more than a probe
        // answered 500. Five in a row trip it when the host answered nothing since (an
        // outage); a hang while it answers the others (a tail) counts for the failure rate
        // only. To the limit as one probe in flight while nothing the host was sent comes
        // back, and as a drop once the breaker is not closed (an outage), as for 500s.
        breaker.onFailure({
          agoMs: Math.max(0, d.clock.monotonic() - sentAt),
          tail: d.limiters.lastAnswerAt(host) >= sentAt,
        });
        permit.hung(breaker.state !== 'closed');
        return;
      case 'failure':
        breaker.onFailure();
        // A lone 500 says nothing about load: no latency sample, no cut. A failure that trips
        // the breaker, or comes while it is open (an outage), cuts the limit, so that fewer
        // requests are in flight when the host comes back.
        if (breaker.state === 'closed') permit.ignore();
        else permit.dropped();
        return;
      default:
        breaker.onIgnore();
        permit.ignore();
    }
  }

  /** Crawl-delay from robots.txt, applied on top of the configured minimum gap. */
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
