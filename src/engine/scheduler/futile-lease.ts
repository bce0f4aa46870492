/**
 * Remembers a lease that found only excluded hosts' work, so the scheduler does not repeat it
 * while the same hosts are excluded. Such a lease can cost a bounded scan of the ready queue
 * (up to the frontier's scan limit, ~6 ms); a finished task of an excluded host mostly enqueues
 * work for that same host, and re-checking after each one made this scan the top item of a
 * one-host crawl's CPU profile. So after those, the lease is re-checked after a pause doubling
 * from 100 ms to 1 s; after a task of another host or a submit, at once.
 */
import type { Clock } from '../../core/clock.js';

const FUTILE_RECHECK_MIN_MS = 100;
const FUTILE_RECHECK_MAX_MS = 1000;

/**
 * Same members: two leases' exclusions. (A sorted join of the names, made on every pump, cost
 * a sort and a string of every buffered host's name in a crawl over thousands of hosts.)
 */
function sameHosts(a: ReadonlySet<string>, b: ReadonlySet<string> | undefined): boolean {
  if (b === undefined || a.size !== b.size) return false;
  for (const h of a) if (!b.has(h)) return false;
  return true;
}

export class FutileLeases {
  /** Excluded hosts of the last lease that returned nothing because of them. */
  #exclude: ReadonlySet<string> | undefined;
  /** The hosts of the last futile lease (kept when #exclude is forgotten). */
  #hosts: ReadonlySet<string> = new Set();
  /** Monotonic time until which a lease with #exclude is not retried, and the current pause. */
  #until = 0;
  #pauseMs = FUTILE_RECHECK_MIN_MS;

  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** Work from outside (a submission) may be for a host a futile lease did not reach. */
  forget(): void {
    this.#exclude = undefined;
  }

  /** Whether a lease excluding these hosts would find what the last futile one found. */
  isFutile(exclude: ReadonlySet<string>): boolean {
    return exclude.size > 0 && this.#clock.monotonic() < this.#until && sameHosts(exclude, this.#exclude);
  }

  /** Whether the host was excluded by the last futile lease. */
  excluded(host: string): boolean {
    return this.#hosts.has(host);
  }

  /** Milliseconds until a futile lease may be tried again. */
  msLeft(): number {
    return Math.max(0, this.#until - this.#clock.monotonic());
  }

  /** What a lease with these exclusions brought back. */
  leased(exclude: ReadonlySet<string>, count: number): void {
    // A lease without exclusions says nothing about other hosts' work: the futile state
    // (and its growing pause) stands, or a buffer hovering at its cap would reset it often.
    if (exclude.size > 0 && count > 0) this.#exclude = undefined;
    if (exclude.size > 0 && count === 0) {
      this.#pauseMs = sameHosts(exclude, this.#exclude)
        ? Math.min(FUTILE_RECHECK_MAX_MS, this.#pauseMs * 2)
        : FUTILE_RECHECK_MIN_MS;
      this.#exclude = exclude;
      this.#hosts = exclude;
      this.#until = this.#clock.monotonic() + this.#pauseMs;
    }
  }
}
