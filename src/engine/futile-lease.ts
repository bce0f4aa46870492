/**
 * Remembers a lease that found only excluded hosts' work, so the scheduler does not repeat it
 * while the same hosts are excluded. Such a lease can cost a bounded scan of the ready queue
 * (up to the frontier's scan limit, ~6 ms); a finished task of an excluded host mostly enqueues
 * work for that same host, and re-checking after each one made this scan the top item of a
 * one-host crawl's CPU profile. So after those, the lease is re-checked after a pause doubling
 * from 100 ms to 1 s; after a task of another host or a submit, at once.
 */
import type { Clock } from '../core/clock.js';

const FUTILE_RECHECK_MIN_MS = 100;
const FUTILE_RECHECK_MAX_MS = 1000;

/** One string per set of excluded hosts, to compare two leases' exclusions. */
export function excludeKeyOf(exclude: ReadonlySet<string>): string {
  return [...exclude].sort().join('\n');
}

export class FutileLeases {
  /** Excluded-host set (joined) of the last lease that returned nothing because of it. */
  #exclude: string | undefined;
  /** The hosts of #exclude. */
  #hosts: ReadonlySet<string> = new Set();
  /** Monotonic time until which a lease with #exclude is not retried, and the current pause. */
  #until = 0;
  #pauseMs = FUTILE_RECHECK_MIN_MS;

  constructor(private readonly clock: Clock) {}

  /** Work from outside (a submission) may be for a host a futile lease did not reach. */
  forget(): void {
    this.#exclude = undefined;
  }

  /** Whether a lease excluding these hosts would find what the last futile one found. */
  isFutile(exclude: ReadonlySet<string>, key: string): boolean {
    return exclude.size > 0 && key === this.#exclude && this.clock.monotonic() < this.#until;
  }

  /** Whether the host was excluded by the last futile lease. */
  excluded(host: string): boolean {
    return this.#hosts.has(host);
  }

  /** Milliseconds until a futile lease may be tried again. */
  msLeft(): number {
    return Math.max(0, this.#until - this.clock.monotonic());
  }

  /** What a lease with these exclusions brought back. */
  leased(exclude: ReadonlySet<string>, key: string, count: number): void {
    // A lease without exclusions says nothing about other hosts' work: the futile state
    // (and its growing pause) stands, or a buffer hovering at its cap would reset it often.
    if (exclude.size > 0 && count > 0) this.#exclude = undefined;
    if (exclude.size > 0 && count === 0) {
      this.#pauseMs =
        key === this.#exclude ? Math.min(FUTILE_RECHECK_MAX_MS, this.#pauseMs * 2) : FUTILE_RECHECK_MIN_MS;
      this.#exclude = key;
      this.#hosts = exclude;
      this.#until = this.clock.monotonic() + this.#pauseMs;
    }
  }
}
