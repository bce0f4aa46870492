/**
 * How far the scheduler leases ahead of its fetching: about a second of it. The buffers (leased,
 * not started) may hold as many tasks as the daemon started in the last second (what it
 * fetches in a second at its current limits: concurrency, rate limits, politeness, CPU), or
 * as its free global slots can start now if more and nothing was told to wait in the last
 * second, at least LEASE_AHEAD.minTasks, at most bufferSize; plus one task per host waiting
 * out a delay. Free slots are no measure of what a daemon held back by a rate limit or a
 * politeness delay can start: counted then, a rate-limited daemon held seconds of its fetching
 * (docs/redis.md, _Lease-ahead of about a second_).
 * A fixed buffer (2 x concurrency.global, 1024 by default, and twice a host's limit per host)
 * was seconds of work on a loaded machine, which daemons sharing a frontier held while one
 * that joined late found nothing to lease (test/e2e/cluster-newcomer.test.ts).
 *
 * The bound moves with the rate and cannot starve the daemon: when the buffers are empty it
 * leases at once, every task it starts raises the bound, and a lease takes a round trip, far
 * less than the second of fetching the buffers hold.
 */
import type { Clock } from '../../core/clock.js';
import type { SchedulerOptions } from './scheduler-options.js';
import { WORK_SHARE } from './work-share.js';

/**
 * What the scheduler leases ahead: the tasks it started in the last windowMs,
 * counted in `slices` slices, and never fewer than minTasks (a daemon that starts, or comes back
 * from idle, leases that many; each task it then starts raises the bound).
 */
export const LEASE_AHEAD = { windowMs: 1000, slices: 8, minTasks: 16 } as const;

/** Default of maxWaitingHosts: as many hosts as the control plane keeps state for (POLITE_HOSTS). */
export const MAX_WAITING_HOSTS = 10_000;

/**
 * Tasks started in a sliding window of about LEASE_AHEAD.windowMs: the current slice and the
 * slices before it, LEASE_AHEAD.slices in all (windowMs / slices wide each).
 */
export class StartMeter {
  readonly #counts = new Array<number>(LEASE_AHEAD.slices).fill(0);
  /** The slice number (monotonic time / slice width) each entry of #counts counts. */
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

  /** Tasks started in the window that ends now. */
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
 * What the buffers may hold besides the waiting hosts' one task each: the tasks started in the
 * last second, or what the free slots can start now if more (a daemon that joins a crawl under
 * way leases at once what it can start, not minTasks), at least minTasks, at most bufferSize.
 * `freeSlots` is 0 when waits, not slots, bound the starts (LeaseAhead.update).
 */
export function leaseAhead(
  o: Pick<SchedulerOptions, 'bufferSize'>,
  startedLastSecond: number,
  freeSlots: number,
): number {
  return Math.min(o.bufferSize, Math.max(LEASE_AHEAD.minTasks, startedLastSecond, freeSlots));
}

/**
 * The same while another daemon of the frontier is hungry (work-share.ts): what the daemon
 * starts in WORK_SHARE.shareWindowMs, at least minTasks, at most bufferSize; not what its free
 * slots could start (those are the hungry one's to fill).
 */
export function sharingAhead(o: Pick<SchedulerOptions, 'bufferSize'>, startedLastSecond: number): number {
  const share = Math.ceil((startedLastSecond * WORK_SHARE.shareWindowMs) / LEASE_AHEAD.windowMs);
  return Math.min(o.bufferSize, Math.max(LEASE_AHEAD.minTasks, share));
}

/** minLeaseBatch, or its default: a quarter of what the buffers may hold (at least 1). */
export function minLeaseBatch(o: Pick<SchedulerOptions, 'minLeaseBatch'>, ahead: number): number {
  return Math.max(1, o.minLeaseBatch ?? Math.floor(ahead / 4));
}

/** How many more tasks the buffers take: `ahead`, plus one per waiting host (maxWaitingHosts). */
export function bufferRoom(
  o: Pick<SchedulerOptions, 'maxWaitingHosts'>,
  ahead: number,
  waitingHosts: number,
  buffered: number,
): number {
  return Math.max(0, ahead + Math.min(waitingHosts, o.maxWaitingHosts ?? MAX_WAITING_HOSTS) - buffered);
}

/** What to lease now: bufferRoom once it reaches minLeaseBatch or the buffers are empty, else 0. */
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
 * A host's share of the buffers: twice what it may have in flight (`hostLimit`: its concurrency
 * limit; on a shared frontier the global limit when lower, as while the event loop is saturated), at most
 * perHostBuffer, within what the buffers may hold; one task for a host told to wait, since a
 * second would sit out a whole politeness gap in the buffer (with every host so, the buffer
 * covered half the hosts it could: 1,024 tasks, ~600 hosts in bench/breadth.mjs).
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

/** The scheduler options the lease-ahead reads. */
type LeaseAheadOptions = Pick<
  SchedulerOptions,
  'bufferSize' | 'perHostBuffer' | 'maxWaitingHosts' | 'minLeaseBatch'
>;

/** The scheduler's lease-ahead state: the start meter and the bound it gives, as of the last pump. */
export class LeaseAhead {
  readonly #meter: StartMeter;
  #ahead: number = LEASE_AHEAD.minTasks;

  readonly #options: LeaseAheadOptions;

  constructor(options: LeaseAheadOptions, clock: Clock) {
    this.#options = options;
    this.#meter = new StartMeter(clock);
  }

  /** A task started. */
  started(): void {
    this.#meter.started();
  }

  /**
   * Takes the bound from the starts of the last second and the free slots (once per pump);
   * `sharing`: another daemon is hungry, the bound is sharingAhead; `throttled`: a host was
   * told to wait (rate limit, politeness) within the last window, so the free slots are not
   * what the daemon can start, and only the starts count.
   */
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
 * What to hand back so that the buffers hold at most `bound` tasks and no host more than its
 * cap: per host, how many of its last tasks (the ones it would start last). Each host keeps
 * its next task; beyond the caps the longest queues give first, down to a common length.
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
