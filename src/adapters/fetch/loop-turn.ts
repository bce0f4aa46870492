import { performance } from 'node:perf_hooks';

/**
 * The crawler's own share of a time to first byte (how long a response sat readable before we
 * parsed it), so the adaptive limit judges the server, not our load (docs/control-plane.md).
 * Per loop turn: inside it, the time since the turn's first response (exact); before it, half
 * the busy time since the previous turn if the loop never idled (the mean of even arrivals).
 */
export class LoopTurn {
  readonly #idleMs: () => number;
  #start: number | undefined;
  #carry = 0;
  #prevStart: number | undefined;
  #prevIdle = 0;
  readonly #end = (): void => {
    this.#start = undefined;
  };

  constructor(idleMs: () => number = () => performance.eventLoopUtilization().idle) {
    this.#idleMs = idleMs;
  }

  queuedMs(now: number): number {
    if (this.#start === undefined) {
      const idle = this.#idleMs();
      const busySincePrev = this.#prevStart !== undefined && idle <= this.#prevIdle;
      this.#carry = busySincePrev ? Math.max(0, now - (this.#prevStart as number)) / 2 : 0;
      this.#prevIdle = idle;
      this.#prevStart = now;
      this.#start = now;
      setImmediate(this.#end);
    }
    return Math.max(0, now - this.#start) + this.#carry;
  }
}
