/**
 * Work sharing on a shared frontier (docs/redis.md, _Work sharing_): a daemon that finds nothing
 * to lease marks itself hungry; busy daemons then lease less ahead and hand back the rest.
 * A mark is removed only on stop, not when fed: removed at once, the others took everything back
 * within a check and the newcomer waited again.
 */
import type { Clock, Timer } from '../../core/clock.js';
import type { WorkSharing } from '../../ports/work-sharing.js';

/**
 * A hungry mark lasts hungerMs (written at most every refreshMs); the hungry daemon polls every
 * hungryPollMs for fastPollForMs. A busy one checks every checkMs and, while another is hungry,
 * leases shareWindowMs ahead.
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
  shed(): void;
  /** The next check or mark tries again. */
  onError(err: unknown): void;
}

export class WorkShare {
  #timer: Timer | undefined;
  #checking = false;
  #busy = false;
  #stopped = false;
  #peersHungry = false;
  /** Epoch ms. */
  #hungryUntil = Number.NEGATIVE_INFINITY;
  #markedAt = Number.NEGATIVE_INFINITY;
  /** Monotonic ms; undefined: fed. */
  #hungrySince: number | undefined;

  readonly #port: WorkSharing;
  readonly #clock: Clock;
  readonly #hooks: WorkShareHooks;

  constructor(port: WorkSharing, clock: Clock, hooks: WorkShareHooks) {
    this.#port = port;
    this.#clock = clock;
    this.#hooks = hooks;
  }

  /** `starved`: the daemon had free slots and nothing to start. */
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

  get hungry(): boolean {
    return this.#clock.now() < this.#hungryUntil;
  }

  get sharing(): boolean {
    return this.#peersHungry && !this.hungry;
  }

  pollMs(): number {
    if (this.#hungrySince === undefined) return Number.POSITIVE_INFINITY;
    const hungryFor = this.#clock.monotonic() - this.#hungrySince;
    return hungryFor < WORK_SHARE.fastPollForMs ? WORK_SHARE.hungryPollMs : Number.POSITIVE_INFINITY;
  }

  /** Others' hunger is checked only while the daemon holds tasks. */
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
