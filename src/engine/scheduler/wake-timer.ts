/**
 * The scheduler's single wake-up timer: armed for the earliest moment something could become
 * runnable, never more than one at a time, so a waiting scheduler holds exactly one timer.
 */
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
    // Keep an earlier timer; one timer at a time bounds the number of pending timers to 1.
    if (this.#timer && this.#at <= at) return;
    this.#timer?.cancel();
    this.#at = at;
    // Kept alive: this timer is the only thing left when every task waits (a paused host, an
    // open breaker, a retry delay, a rate limit, a politeness gap); unref'd, Node's loop
    // drained and `--once` exited 0 with the work undone.
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
