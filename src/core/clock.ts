/**
 * Time as a dependency. Core code never calls Date.now, setTimeout or Math.random
 * directly: it receives a Clock, so tests drive time with FakeClock and never sleep.
 */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  /** Wall-clock epoch milliseconds (used for scheduling and persisted timestamps). */
  now(): number;
  /** Monotonic milliseconds, for measuring durations. */
  monotonic(): number;
  /**
   * Runs fn once after ms. Real timers are unref'd: a pending timer never keeps the process
   * alive, unless `keepAlive` says that it stands for work still to do (the scheduler's
   * wake-up while tasks wait: without it `--once` exited 0 with the work undone).
   */
  setTimer(fn: () => void, ms: number, options?: TimerOptions): Timer;
}

export interface TimerOptions {
  /** Keep the process alive until the timer fires or is cancelled. @default false */
  readonly keepAlive?: boolean;
}

/**
 * Node's largest timer delay (2^31-1 ms, 24.8 days). A longer one fires after 1 ms instead,
 * which would turn a wake-up for a monthly recrawl into a busy loop: setTimer caps delays at
 * this, and callers re-check their deadline when woken (the scheduler does).
 */
export const MAX_TIMER_MS = 2_147_483_647;

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer(fn, ms, options) {
    const h = setTimeout(fn, Math.min(MAX_TIMER_MS, Math.max(0, ms)));
    if (!options?.keepAlive) h.unref();
    return { cancel: () => clearTimeout(h) };
  },
};

/** Resolves after ms on the given clock; rejects with the signal's reason when aborted. */
export function sleep(clock: Clock, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      timer.cancel();
      reject(signal?.reason);
    };
    const timer = clock.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A deterministic clock for tests: time moves only when advance() is called. */
export class FakeClock implements Clock {
  #now: number;
  #mono = 0;
  #seq = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();

  constructor(startEpochMs = 1_700_000_000_000) {
    this.#now = startEpochMs;
  }

  now(): number {
    return this.#now;
  }

  monotonic(): number {
    return this.#mono;
  }

  setTimer(fn: () => void, ms: number): Timer {
    const id = ++this.#seq;
    this.#timers.set(id, { at: this.#mono + Math.max(0, ms), fn });
    return { cancel: () => this.#timers.delete(id) };
  }

  /** Moves time forward, firing due timers in order (timers they schedule fire too if due). */
  advance(ms: number): void {
    const target = this.#mono + ms;
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.#timers) {
        if (entry[1].at <= target && (!next || entry[1].at < next[1].at)) next = entry;
      }
      if (!next) break;
      this.#timers.delete(next[0]);
      this.#now += next[1].at - this.#mono;
      this.#mono = next[1].at;
      next[1].fn();
    }
    this.#now += target - this.#mono;
    this.#mono = target;
  }

  pendingTimers(): number {
    return this.#timers.size;
  }
}

/** Injected randomness, for jitter. */
export type Random = () => number;
export const systemRandom: Random = Math.random;
