import { DueQueue } from './due-queue.js';

/**
 * Hosts held back until an epoch-ms time: deferred (paused or broken: tasks handed back, not
 * leased) and waiting (rate limit, politeness: kept buffered, the wait reported once). Waits
 * end in time order, so expiring them costs the hosts whose wait ended, not every waiting host.
 */
export class HostHolds {
  readonly #deferred = new Map<string, number>();
  readonly #waiting = new DueQueue<string>();
  #lastWaitAt = Number.NEGATIVE_INFINITY;

  /** The hosts whose wait ended (at or before now), earliest first. */
  expire(now: number): string[] {
    for (const [host, until] of this.#deferred) if (until <= now) this.#deferred.delete(host);
    return this.#waiting.popDue(now);
  }

  /** A new set the caller may add to. */
  deferredHosts(): Set<string> {
    return new Set(this.#deferred.keys());
  }

  defer(host: string, until: number): void {
    this.#deferred.set(host, until);
  }

  nextDeferralEndsIn(now: number): number {
    let next = Number.POSITIVE_INFINITY;
    for (const until of this.#deferred.values()) next = Math.min(next, until);
    return Math.max(0, next - now);
  }

  /** Ms until the first wait ends (+Infinity: none). */
  nextWaitEndsIn(now: number): number {
    return Math.max(0, this.#waiting.nextAt() - now);
  }

  /** As of the last expire(). */
  get waitingCount(): number {
    return this.#waiting.size;
  }

  get lastWaitAt(): number {
    return this.#lastWaitAt;
  }

  waitingUntil(host: string, now: number): number | undefined {
    const until = this.#waiting.dueAt(host);
    return until !== undefined && until > now ? until : undefined;
  }

  /** True once per host and period, to count a wait once. */
  wait(host: string, now: number, delayMs: number): boolean {
    this.#lastWaitAt = now;
    if ((this.#waiting.dueAt(host) ?? 0) > now) return false;
    this.#waiting.set(host, now + delayMs);
    return true;
  }
}
