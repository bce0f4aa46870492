/** Time as a dependency: core code takes a Clock, so tests use FakeClock and never sleep. */
export interface Timer {
  cancel(): void;
}

export interface Clock {
  now(): number;
  monotonic(): number;
  /** Real timers are unref'd unless `keepAlive`: work still to do (else `--once` exited with work undone). */
  setTimer(fn: () => void, ms: number, options?: TimerOptions): Timer;
}

export interface TimerOptions {
  /** @default false */
  readonly keepAlive?: boolean;
}

/** Node's largest timer: longer delays fire after 1 ms, so setTimer caps them and callers re-check. */
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

  /** Fires due timers in order, including those they schedule. */
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

export type Random = () => number;
export const systemRandom: Random = Math.random;
