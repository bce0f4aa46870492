/** The scheduler's one wake-up timer, for the earliest moment something could run. */
import type { Clock, Timer } from '../../core/clock.js';

export class WakeTimer {
  #timer: Timer | undefined;
  #at = Number.POSITIVE_INFINITY;

  readonly #clock: Clock;
  readonly #onWake: () => void;

  constructor(clock: Clock, onWake: () => void) {
    this.#clock = clock;
    this.#onWake = onWake;
  }

  arm(inMs: number): void {
    if (!Number.isFinite(inMs)) return;
    const at = this.#clock.monotonic() + inMs;
    if (this.#timer && this.#at <= at) return;
    this.#timer?.cancel();
    this.#at = at;
    // Kept alive: when every task waits it is all that is left; unref'd, `--once` exited 0 undone.
    this.#timer = this.#clock.setTimer(
      () => {
        this.#timer = undefined;
        this.#at = Number.POSITIVE_INFINITY;
        this.#onWake();
      },
      inMs,
      { keepAlive: true },
    );
  }

  cancel(): void {
    this.#timer?.cancel();
  }
}
