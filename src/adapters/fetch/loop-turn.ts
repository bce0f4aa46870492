import { performance } from 'node:perf_hooks';

/**
 * Estimates how long a response had been readable before this process parsed its headers: the
 * crawler's own share of a measured time to first byte, so that the adaptive limit judges the
 * server and not the crawler's load.
 *
 * Why: on the 50 ms demo site the server's own time (request parsed to response finished) stays
 * at 51–53 ms from 8 to 200 requests in flight, yet the time to first byte a crawler measures
 * grows with its own load: 60 ms at 16 in flight and 77 ms at 64 for crawld, 109 ms at 64 and
 * 193 ms at 200 for the raw undici baseline. The adaptive limit read that as server overload,
 * cut, and held the crawl far below what the server allowed. The event-loop lag monitor misses
 * most of it: a timer fires on time between two busy turns while responses queue inside them.
 *
 * Two parts, estimated per event-loop turn (a turn begins at the first response parsed in it;
 * the immediate that follows the poll phase ends it):
 * - inside the turn: the callbacks of one turn run one after another, so a response parsed
 *   k-th waited for the k−1 before it: now − turn start, exact;
 * - before the turn: if the loop sat idle in the poll since the previous turn, the data woke
 *   it and waited for nothing. If it never idled, the data arrived at some point while the loop
 *   was busy since the previous turn began: half that time is counted, the mean for arrivals
 *   spread evenly.
 * Measured on that site at 16, 32 and 64 in flight: time to first byte 60, 64, 77 ms; net of
 * this estimate 54, 53, 55 ms. The inside part alone left 62 ms at 64.
 */
export class LoopTurn {
  readonly #idleMs: () => number;
  #start: number | undefined;
  /** The before-the-turn part of the current turn. */
  #carry = 0;
  #prevStart: number | undefined;
  #prevIdle = 0;
  readonly #end = (): void => {
    this.#start = undefined;
  };

  /** `idleMs`: the event loop's total idle time so far, in ms (as eventLoopUtilization().idle). */
  constructor(idleMs: () => number = () => performance.eventLoopUtilization().idle) {
    this.#idleMs = idleMs;
  }

  /** The estimated wait of a response whose headers are parsed at `now` (performance.now()). */
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
