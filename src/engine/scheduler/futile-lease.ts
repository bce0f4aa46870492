/**
 * A lease that found only excluded hosts' work is not repeated while the same hosts are excluded:
 * it can cost a scan of the ready queue (docs/performance.md, _engine_). Re-checked after a pause
 * doubling from 100 ms to 1 s, or at once after another host's task or a submit.
 */
import type { Clock } from '../../core/clock.js';

const FUTILE_RECHECK_MIN_MS = 100;
const FUTILE_RECHECK_MAX_MS = 1000;

/** By members: a sorted join of the names on every pump was costly over thousands of hosts. */
function sameHosts(a: ReadonlySet<string>, b: ReadonlySet<string> | undefined): boolean {
  if (b === undefined || a.size !== b.size) return false;
  for (const h of a) if (!b.has(h)) return false;
  return true;
}

export class FutileLeases {
  #exclude: ReadonlySet<string> | undefined;
  /** Kept when #exclude is forgotten. */
  #hosts: ReadonlySet<string> = new Set();
  /** Monotonic ms. */
  #until = 0;
  #pauseMs = FUTILE_RECHECK_MIN_MS;

  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  forget(): void {
    this.#exclude = undefined;
  }

  isFutile(exclude: ReadonlySet<string>): boolean {
    return exclude.size > 0 && this.#clock.monotonic() < this.#until && sameHosts(exclude, this.#exclude);
  }

  excluded(host: string): boolean {
    return this.#hosts.has(host);
  }

  msLeft(): number {
    return Math.max(0, this.#until - this.#clock.monotonic());
  }

  leased(exclude: ReadonlySet<string>, count: number): void {
    // A lease without exclusions says nothing about other hosts' work: the state stands.
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
