/**
 * How far the scheduler leases ahead: about a second of its fetching, so that daemons sharing a
 * frontier do not hold what a newcomer could fetch (docs/redis.md, _Lease-ahead of about a second_).
 * It cannot starve the daemon: empty buffers lease at once, and every start raises the bound.
 */
import type { Clock } from '../../core/clock.js';
import type { SchedulerOptions } from './scheduler-options.js';
import { WORK_SHARE } from './work-share.js';

/** The tasks started in the last windowMs (counted in `slices`), never fewer than minTasks. */
export const LEASE_AHEAD = { windowMs: 1000, slices: 8, minTasks: 16 } as const;

/** Default of maxWaitingHosts: as many hosts as the control plane keeps state for (POLITE_HOSTS). */
export const MAX_WAITING_HOSTS = 10_000;

/** Tasks started in a sliding window of about LEASE_AHEAD.windowMs, in LEASE_AHEAD.slices slices. */
export class StartMeter {
  readonly #counts = new Array<number>(LEASE_AHEAD.slices).fill(0);
  readonly #slices = new Array<number>(LEASE_AHEAD.slices).fill(-1);
  readonly #width = LEASE_AHEAD.windowMs / LEASE_AHEAD.slices;

  readonly #clock: Clock;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  started(): void {
    const slice = Math.floor(this.#clock.monotonic() / this.#width);
    const i = slice % LEASE_AHEAD.slices;
    if (this.#slices[i] !== slice) {
      this.#slices[i] = slice;
      this.#counts[i] = 0;
    }
    this.#counts[i]!++;
  }

  count(): number {
    const slice = Math.floor(this.#clock.monotonic() / this.#width);
    let n = 0;
    for (let i = 0; i < LEASE_AHEAD.slices; i++) {
      if (this.#slices[i]! > slice - LEASE_AHEAD.slices) n += this.#counts[i]!;
    }
    return n;
  }
}

/**
 * What the buffers may hold besides one task per waiting host. The free slots count so that a
 * daemon joining a crawl leases what it can start at once; 0 when waits bound the starts.
 */
export function leaseAhead(
  o: Pick<SchedulerOptions, 'bufferSize'>,
  startedLastSecond: number,
  freeSlots: number,
): number {
  return Math.min(o.bufferSize, Math.max(LEASE_AHEAD.minTasks, startedLastSecond, freeSlots));
}

/** The same while another daemon is hungry: free slots do not count (they are the hungry one's to fill). */
export function sharingAhead(o: Pick<SchedulerOptions, 'bufferSize'>, startedLastSecond: number): number {
  const share = Math.ceil((startedLastSecond * WORK_SHARE.shareWindowMs) / LEASE_AHEAD.windowMs);
  return Math.min(o.bufferSize, Math.max(LEASE_AHEAD.minTasks, share));
}

export function minLeaseBatch(o: Pick<SchedulerOptions, 'minLeaseBatch'>, ahead: number): number {
  return Math.max(1, o.minLeaseBatch ?? Math.floor(ahead / 4));
}

export function bufferRoom(
  o: Pick<SchedulerOptions, 'maxWaitingHosts'>,
  ahead: number,
  waitingHosts: number,
  buffered: number,
): number {
  return Math.max(0, ahead + Math.min(waitingHosts, o.maxWaitingHosts ?? MAX_WAITING_HOSTS) - buffered);
}

/** A lease has a fixed cost: lease once the room reaches minLeaseBatch, or the buffers are empty. */
export function leaseRoom(
  o: Pick<SchedulerOptions, 'maxWaitingHosts' | 'minLeaseBatch'>,
  ahead: number,
  waitingHosts: number,
  buffered: number,
): number {
  const room = bufferRoom(o, ahead, waitingHosts, buffered);
  return room >= minLeaseBatch(o, ahead) || (buffered === 0 && room > 0) ? room : 0;
}

/**
 * A host's share of the buffers: twice what it may have in flight; one for a host told to wait,
 * since a second would sit out a whole politeness gap in the buffer (docs/performance.md, _engine_).
 */
export function hostBufferCap(
  o: Pick<SchedulerOptions, 'perHostBuffer'>,
  ahead: number,
  hostLimit: number,
  waiting: boolean,
): number {
  if (waiting) return 1;
  return Math.min(o.perHostBuffer, ahead, Math.max(2, hostLimit * 2));
}

type LeaseAheadOptions = Pick<
  SchedulerOptions,
  'bufferSize' | 'perHostBuffer' | 'maxWaitingHosts' | 'minLeaseBatch'
>;

export class LeaseAhead {
  readonly #meter: StartMeter;
  #ahead: number = LEASE_AHEAD.minTasks;

  readonly #options: LeaseAheadOptions;

  constructor(options: LeaseAheadOptions, clock: Clock) {
    this.#options = options;
    this.#meter = new StartMeter(clock);
  }

  started(): void {
    this.#meter.started();
  }

  /** Once per pump. `throttled`: a host was told to wait lately, so free slots are not what can start. */
  update(freeSlots: number, sharing = false, throttled = false): void {
    const started = this.#meter.count();
    this.#ahead = sharing
      ? sharingAhead(this.#options, started)
      : leaseAhead(this.#options, started, throttled ? 0 : freeSlots);
  }

  room(waitingHosts: number, buffered: number): number {
    return bufferRoom(this.#options, this.#ahead, waitingHosts, buffered);
  }

  leaseRoom(waitingHosts: number, buffered: number): number {
    return leaseRoom(this.#options, this.#ahead, waitingHosts, buffered);
  }

  hostCap(hostLimit: number, waiting: boolean): number {
    return hostBufferCap(this.#options, this.#ahead, hostLimit, waiting);
  }
}

/**
 * Per host, how many of its last tasks to hand back so that the buffers hold at most `bound` and
 * no host more than its cap. Each host keeps its next task; the longest queues give first.
 */
export function shedPlan(
  hosts: readonly { readonly host: string; readonly size: number; readonly cap: number }[],
  bound: number,
): Map<string, number> {
  const kept = hosts.map((h) => Math.min(h.size, Math.max(1, h.cap)));
  const keptAt = (level: number) => kept.reduce((n, k) => n + Math.min(k, level), 0);
  // The longest common length that fits the bound (at least 1), by bisection.
  let lo = 1;
  let hi = kept.reduce((m, k) => Math.max(m, k), 1);
  if (keptAt(hi) > bound) {
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (keptAt(mid) <= bound) lo = mid;
      else hi = mid - 1;
    }
    // What the bound still has room for goes one each to the first hosts over that length.
    let spare = Math.max(0, bound - keptAt(lo));
    for (const [i, k] of kept.entries()) {
      const extra = k > lo && spare > 0 ? 1 : 0;
      spare -= extra;
      kept[i] = Math.min(k, lo + extra);
    }
  }
  const plan = new Map<string, number>();
  for (const [i, h] of hosts.entries()) if (h.size > kept[i]!) plan.set(h.host, h.size - kept[i]!);
  return plan;
}
