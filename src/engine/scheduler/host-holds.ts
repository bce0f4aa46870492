/**
 * Hosts held back until an epoch-ms time: deferred (paused or broken: tasks handed back, not
 * leased) and waiting (rate limit, politeness: kept buffered, the wait reported once).
 */
export class HostHolds {
  readonly #deferred = new Map<string, number>();
  readonly #waiting = new Map<string, number>();
  #lastWaitAt = Number.NEGATIVE_INFINITY;

  expire(now: number): void {
    for (const [host, until] of this.#deferred) if (until <= now) this.#deferred.delete(host);
    for (const [host, until] of this.#waiting) if (until <= now) this.#waiting.delete(host);
  }

  /** A new set the caller may add to. */
  deferredHosts(): Set<string> {
    return new Set(this.#deferred.keys());
  }

  defer(host: string, until: number): void {
    this.#deferred.set(host, until);
  }

  nextDeferralEndsIn(now: number): number {
    if (this.#deferred.size === 0) return Number.POSITIVE_INFINITY;
    return Math.max(0, Math.min(...this.#deferred.values()) - now);
  }

  /** As of the last expire(). */
  get waitingCount(): number {
    return this.#waiting.size;
  }

  get lastWaitAt(): number {
    return this.#lastWaitAt;
  }

  waitingUntil(host: string, now: number): number | undefined {
    const until = this.#waiting.get(host);
    return until !== undefined && until > now ? until : undefined;
  }

  /** True once per host and period, to count a wait once. */
  wait(host: string, now: number, delayMs: number): boolean {
    this.#lastWaitAt = now;
    if ((this.#waiting.get(host) ?? 0) > now) return false;
    this.#waiting.set(host, now + delayMs);
    return true;
  }
}
