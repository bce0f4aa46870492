/**
 * Work sharing between the daemons of a shared frontier: a daemon that joins a crawl
 * under way finds the others holding what is left (in flight, and about a second of their
 * fetching in their buffers, lease-ahead.ts), and would fetch little of it. So:
 *
 * - A daemon whose lease found nothing while it could start more (free slots, nothing it could
 *   start buffered) is **hungry**: it marks itself so in the store for WORK_SHARE.hungerMs
 *   (refreshed while it stays hungry) and looks for work every hungryPollMs, not idlePollMs.
 * - A busy daemon (tasks buffered or in flight) asks every checkMs, on a timer, not per task,
 *   whether another one is hungry. While one is and it is not hungry itself, it **shares**: it
 *   leases only shareWindowMs of its fetching ahead, and hands back (uncharged, as on shutdown)
 *   what its buffers hold beyond that, so that the hungry one leases it at its next poll.
 *
 * A mark is not removed when its daemon is fed, only when it stops: the others go on sharing
 * until it lapses, so that the newcomer's next leases find work too (a mark removed at once
 * let the others take everything back within a check, and the newcomer waited again).
 */
import type { Clock, Timer } from '../../core/clock.js';
import type { WorkSharing } from '../../ports/work-sharing.js';

/**
 * Work sharing's timings. A daemon whose lease found nothing while
 * it could start more is hungry for hungerMs after that (its mark written at most every
 * refreshMs) and looks for work every hungryPollMs for the first fastPollForMs of its hunger
 * (then every idlePollMs). A busy daemon asks every checkMs whether another one is hungry; while
 * one is, it leases shareWindowMs of its fetching ahead instead of LEASE_AHEAD.windowMs and
 * hands back what its buffers hold beyond that.
 */
export const WORK_SHARE = {
  checkMs: 100,
  hungerMs: 1000,
  refreshMs: 250,
  hungryPollMs: 100,
  fastPollForMs: 5000,
  shareWindowMs: 200,
} as const;

export interface WorkShareHooks {
  /** Another daemon is hungry, this one is not: hand back what is beyond the short look-ahead. */
  shed(): void;
  /** A call to the store failed (it is down): the next check or mark tries again. */
  onError(err: unknown): void;
}

export class WorkShare {
  #timer: Timer | undefined;
  #checking = false;
  #busy = false;
  #stopped = false;
  /** The last check found another daemon hungry. */
  #peersHungry = false;
  /** Until when this daemon's mark lasts, and when it was last written (epoch ms). */
  #hungryUntil = Number.NEGATIVE_INFINITY;
  #markedAt = Number.NEGATIVE_INFINITY;
  /** When this daemon's current hunger began (monotonic ms); undefined: fed. */
  #hungrySince: number | undefined;

  readonly #port: WorkSharing;
  readonly #clock: Clock;
  readonly #hooks: WorkShareHooks;

  constructor(port: WorkSharing, clock: Clock, hooks: WorkShareHooks) {
    this.#port = port;
    this.#clock = clock;
    this.#hooks = hooks;
  }

  /** A lease brought `found` tasks; `starved`: the daemon had free slots and nothing to start. */
  leased(found: number, starved: boolean): void {
    if (found > 0 || !starved) {
      this.#hungrySince = undefined;
      return;
    }
    this.#hungrySince ??= this.#clock.monotonic();
    const now = this.#clock.now();
    if (now - this.#markedAt < WORK_SHARE.refreshMs || this.#stopped) return;
    this.#markedAt = now;
    this.#hungryUntil = now + WORK_SHARE.hungerMs;
    this.#port.hungry(now, this.#hungryUntil).catch((err: unknown) => {
      // Not marked after all: the next hungry lease writes it.
      this.#markedAt = Number.NEGATIVE_INFINITY;
      this.#hooks.onError(err);
    });
  }

  /** This daemon's mark stands (it found nothing to lease within hungerMs). */
  get hungry(): boolean {
    return this.#clock.now() < this.#hungryUntil;
  }

  /** Lease only shareWindowMs ahead: another daemon is hungry (at the last check), this one is not. */
  get sharing(): boolean {
    return this.#peersHungry && !this.hungry;
  }

  /** When to look for work again while hungry: hungryPollMs early in a hunger, else Infinity. */
  pollMs(): number {
    if (this.#hungrySince === undefined) return Number.POSITIVE_INFINITY;
    const hungryFor = this.#clock.monotonic() - this.#hungrySince;
    return hungryFor < WORK_SHARE.fastPollForMs ? WORK_SHARE.hungryPollMs : Number.POSITIVE_INFINITY;
  }

  /** Whether the daemon holds tasks (buffered or in flight): others' hunger is checked only then. */
  busy(busy: boolean): void {
    this.#busy = busy;
    if (busy) {
      this.#arm();
      return;
    }
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#peersHungry = false;
  }

  /** No more checks; the mark is removed (others need not wait for it to lapse). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.busy(false);
    if (!this.hungry) return;
    this.#hungryUntil = Number.NEGATIVE_INFINITY;
    await this.#port.fed().catch((err: unknown) => this.#hooks.onError(err));
  }

  #arm(): void {
    if (this.#timer !== undefined || this.#checking || this.#stopped || !this.#busy) return;
    this.#timer = this.#clock.setTimer(() => {
      this.#timer = undefined;
      void this.#check();
    }, WORK_SHARE.checkMs);
  }

  async #check(): Promise<void> {
    this.#checking = true;
    try {
      this.#peersHungry = await this.#port.othersHungry(this.#clock.now());
    } catch (err) {
      this.#peersHungry = false;
      this.#hooks.onError(err);
    } finally {
      this.#checking = false;
    }
    if (this.#stopped) return;
    if (this.sharing) this.#hooks.shed();
    // Until the scheduler says it holds nothing (busy(false)): a daemon whose tasks all run
    // long pumps seldom, and must still hear of hunger.
    this.#arm();
  }
}
