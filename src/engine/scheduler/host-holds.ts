/**
 * Hosts the scheduler holds back for a while, each until an epoch-ms time: deferred ones
 * (paused or broken, their tasks handed back and not leased again until then) and waiting
 * ones (rate limit, politeness), whose wait is reported once per period.
 */
export class HostHolds {
  /** Hosts handed back (paused / broken) and when they may be leased again (epoch ms). */
  readonly #deferred = new Map<string, number>();
  /** Hosts told to wait (rate limit, politeness) and until when (epoch ms). */
  readonly #waiting = new Map<string, number>();
  /** When a host was last told to wait (epoch ms). */
  #lastWaitAt = Number.NEGATIVE_INFINITY;

  /** Forgets the holds that ended by now. */
  expire(now: number): void {
    for (const [host, until] of this.#deferred) if (until <= now) this.#deferred.delete(host);
    for (const [host, until] of this.#waiting) if (until <= now) this.#waiting.delete(host);
  }

  /** The deferred hosts, a new set the caller may add to. */
  deferredHosts(): Set<string> {
    return new Set(this.#deferred.keys());
  }

  defer(host: string, until: number): void {
    this.#deferred.set(host, until);
  }

  /** Milliseconds until the first deferred host may be leased again (Infinity: none deferred). */
  nextDeferralEndsIn(now: number): number {
    if (this.#deferred.size === 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, Math.min(...this.#deferred.values()) - now);
  }

  /** Hosts told to wait whose wait had not ended at the last expire(). */
  get waitingCount(): number {
    return this.#waiting.size;
  }

  /** When a host was last told to wait (epoch ms; -Infinity: never). */
  get lastWaitAt(): number {
    return this.#lastWaitAt;
  }

  /** Epoch ms until which the host was told to wait, if that is still ahead of now. */
  waitingUntil(host: string, now: number): number | undefined {
    const until = this.#waiting.get(host);
    return until !== undefined && until > now ? until : undefined;
  }

  /** Records that the host waits; true once per host and period (to count a wait once). */
  wait(host: string, now: number, delayMs: number): boolean {
    this.#lastWaitAt = now;
    if ((this.#waiting.get(host) ?? 0) > now) return false;
    this.#waiting.set(host, now + delayMs);
    return true;
  }
}
