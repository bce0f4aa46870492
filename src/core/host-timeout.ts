import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import { LruMap } from './lru-map.js';
import type { TimeoutPhase } from './timeout-phase.js';

export { TIMEOUT_PHASES, type TimeoutPhase } from './timeout-phase.js';

/**
 * Timeouts that learn each host's latency (issue 44): when a request is given up as hung.
 *
 * A fixed timeout must be long enough for the slowest host and is then far too long for a fast
 * one: each request a 50 ms host never answers held its concurrency slot for the whole 15 s
 * headersTimeoutMs, and a 5 % tail of such requests filled the host's slots (a 2,000-page crawl
 * ran at 0.15-0.19 x its rate, docs/control-plane.md). TCP has the same problem and solves it by
 * learning its retransmission timeout from the round trips it measures (RFC 6298): per host and
 * phase of a request, the smoothed time SRTT and its mean deviation RTTVAR, and
 *
 *   timeout = max(floorMs, minRatio x SRTT, SRTT + factor x RTTVAR), at most the configured one,
 *
 * doubled on each expiry of a request armed at the current timeout (a burst of requests
 * expiring together backs off once, not once each), back to the estimate at the next response.
 * `minRatio` is ours: a host that answers every page in 3 s has a deviation of a few ms, and
 * SRTT + 4 RTTVAR would cut its first page that takes 3.05 s; TCP's answer, a minimum RTO of
 * 200 ms-1 s, is large next to network round trips but not next to a server's own time.
 * A host with fewer than `minSamples` samples of a phase waits the configured timeout. And a
 * request past its timeout is hung only if its host is not just slow right now: one whose host's
 * last few answers took at least half as long waits on (PhaseEstimate.overdue), so a host we load
 * past its knee, or our own loaded process, is followed rather than given up on.
 */

export interface AdaptiveTimeoutOptions {
  /** false: every request waits the configured timeouts, whatever its host's latency. @default true */
  readonly enabled?: boolean;
  /** A learned timeout is never shorter than this. @default 250 */
  readonly floorMs?: number;
  /** K of RFC 6298: the smoothed time plus this many times its mean deviation. @default 4 */
  readonly factor?: number;
  /** A learned timeout is at least this many times the smoothed time. @default 2 */
  readonly minRatio?: number;
  /** Samples of a phase a host needs before its learned timeout is in force. @default 5 */
  readonly minSamples?: number;
  /** Hosts remembered; the least recently used beyond this are forgotten. @default 10000 */
  readonly maxHosts?: number;
}

export const adaptiveTimeoutDefaults = {
  enabled: true,
  floorMs: 250,
  factor: 4,
  minRatio: 2,
  minSamples: 5,
  maxHosts: 10_000,
} as const satisfies Required<AdaptiveTimeoutOptions>;

/** The bounds of each number option (the config's fetch.adaptiveTimeout is built from them). */
export const ADAPTIVE_TIMEOUT_BOUNDS = Object.freeze({
  floorMs: { min: 1, max: 600_000, integer: true },
  factor: { min: 1, max: 16 },
  minRatio: { min: 1, max: 16 },
  minSamples: { min: 1, max: 1000, integer: true },
  maxHosts: POSITIVE_INT,
} as const satisfies Record<Exclude<keyof AdaptiveTimeoutOptions, 'enabled'>, Bound>);

/** RFC 6298's gains: SRTT moves 1/8 of the way to a sample, RTTVAR 1/4. */
const ALPHA = 1 / 8;
const BETA = 1 / 4;
/** Samples in each half of the recent ones overdue() looks at. */
const RECENT_HALF = 4;
/** Back-off levels beyond this change nothing (2^20 x the floor is past any ceiling). */
const MAX_LEVEL = 20;

/** The timeout one phase of one request is held to. */
export interface ArmedTimeout {
  /** Milliseconds: the host's learned timeout, or the configured one (`learned` false). */
  readonly ms: number;
  readonly learned: boolean;
  /** The back-off level it was armed at: an expiry backs off only if it is the current one. */
  readonly level: number;
}

/** SRTT and RTTVAR of one phase of one host, and its back-off. */
export class PhaseEstimate {
  #srtt = 0;
  #rttvar = 0;
  #samples = 0;
  #level = 0;

  get samples(): number {
    return this.#samples;
  }

  get srtt(): number {
    return this.#srtt;
  }

  get rttvar(): number {
    return this.#rttvar;
  }

  /** Consecutive back-offs since the last sample. */
  get level(): number {
    return this.#level;
  }

  /** The largest of the host's last RECENT_HALF to 2 x RECENT_HALF samples: two halves, the older dropped in turn. */
  #recent = 0;
  #older = 0;
  #inHalf = 0;

  /** The largest time of the host's last few answers (4 to 8). */
  get recentMaxMs(): number {
    return Math.max(this.#recent, this.#older);
  }

  /**
   * A phase that has waited `ageMs`, past its timeout: hung, or slow with its host? Slow while
   * the host's last few answers took at least half as long as it has waited: a host we loaded
   * past its knee (slow start doubles the requests in flight, and their latency with them in
   * a round trip or two, faster than SRTT follows), or a process of ours too busy to read its
   * answers, makes every answer slow, and those are latencies to learn, not hangs to give up.
   * A request the host left hanging while it answers the others promptly (a tail), or after it
   * stopped answering at all (an outage), is hung.
   */
  overdue(ageMs: number): 'hung' | 'slow' {
    return 2 * this.recentMaxMs >= ageMs ? 'slow' : 'hung';
  }

  /** A response in time: RFC 6298 section 2.2-2.3; the back-off ends (section 5.7). */
  sample(ms: number): void {
    const r = Math.max(0, ms);
    if (this.#samples === 0) {
      this.#srtt = r;
      this.#rttvar = r / 2;
    } else {
      this.#rttvar = (1 - BETA) * this.#rttvar + BETA * Math.abs(this.#srtt - r);
      this.#srtt = (1 - ALPHA) * this.#srtt + ALPHA * r;
    }
    this.#samples++;
    this.#level = 0;
    this.#recent = Math.max(this.#recent, r);
    if (++this.#inHalf >= RECENT_HALF) {
      this.#older = this.#recent;
      this.#recent = 0;
      this.#inHalf = 0;
    }
  }

  /** A request armed at `level` expired: back off once per level (section 5.5). */
  expired(level: number): void {
    if (level >= this.#level) this.#level = Math.min(MAX_LEVEL, level + 1);
  }

  /** The estimate before back-off, within [floor, ceiling]; undefined while not in force. */
  base(o: Required<AdaptiveTimeoutOptions>, ceilingMs: number): number | undefined {
    if (!o.enabled || this.#samples < o.minSamples) return undefined;
    const ms = Math.max(o.floorMs, o.minRatio * this.#srtt, this.#srtt + o.factor * this.#rttvar);
    return Math.min(ceilingMs, Math.ceil(ms));
  }

  /** The timeout a request of this phase is armed with now. */
  arm(o: Required<AdaptiveTimeoutOptions>, ceilingMs: number): ArmedTimeout {
    const base = this.base(o, ceilingMs);
    if (base === undefined) return { ms: ceilingMs, learned: false, level: this.#level };
    const ms = Math.min(ceilingMs, base * 2 ** this.#level);
    return { ms, learned: ms < ceilingMs, level: this.#level };
  }
}

/** Validates the options, filling the defaults. */
export function checkAdaptiveTimeoutOptions(
  options: AdaptiveTimeoutOptions = {},
): Required<AdaptiveTimeoutOptions> {
  const o = { ...adaptiveTimeoutDefaults, ...options };
  const b = ADAPTIVE_TIMEOUT_BOUNDS;
  checkNumber('floorMs', o.floorMs, b.floorMs);
  checkNumber('factor', o.factor, b.factor);
  checkNumber('minRatio', o.minRatio, b.minRatio);
  checkNumber('minSamples', o.minSamples, b.minSamples);
  checkNumber('maxHosts', o.maxHosts, b.maxHosts);
  return o;
}

type HostEstimates = Partial<Record<TimeoutPhase, PhaseEstimate>>;

/**
 * Every host's estimates, bounded (an LRU map of `maxHosts`). What the fetchers ask before each
 * phase of a request (`arm`) and tell after it (`sample`, `expired`); the status page and the
 * metrics read `timeoutOf`.
 */
export class HostTimeouts {
  readonly options: Required<AdaptiveTimeoutOptions>;
  readonly #hosts: LruMap<string, HostEstimates>;

  constructor(options: AdaptiveTimeoutOptions = {}) {
    this.options = checkAdaptiveTimeoutOptions(options);
    this.#hosts = new LruMap(this.options.maxHosts);
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** Hosts with estimates. */
  get size(): number {
    return this.#hosts.size;
  }

  /** The timeout a request's `phase` to `host` is held to now; `ceilingMs` is the configured one. */
  arm(host: string, phase: TimeoutPhase, ceilingMs: number): ArmedTimeout {
    const h = this.#hosts.get(host);
    const e = h?.[phase];
    if (!e || !this.options.enabled) return { ms: ceilingMs, learned: false, level: 0 };
    const armed = e.arm(this.options, ceilingMs);
    if (phase !== 'body' || !armed.learned) return armed;
    // A body may go silent as long as its host may take to answer: most bodies arrive in one
    // piece, their silences are a few ms and their own estimate sits at the floor, while a
    // packet lost mid-body costs TCP a retransmission timeout of 200 ms or more plus a round trip.
    const headers = h.headers?.base(this.options, ceilingMs);
    if (headers === undefined) return { ms: ceilingMs, learned: false, level: armed.level };
    const ms = Math.min(ceilingMs, Math.max(armed.ms, headers));
    return { ms, learned: ms < ceilingMs, level: armed.level };
  }

  /** `phase` of a request to `host` took `ms` and ended in time. */
  sample(host: string, phase: TimeoutPhase, ms: number): void {
    if (!this.options.enabled) return;
    this.#estimate(host, phase).sample(ms);
  }

  /** `phase` of a request to `host` has waited `ageMs`, past its timeout: hung, or slow with its host (PhaseEstimate.overdue)? */
  overdue(host: string, phase: TimeoutPhase, ageMs: number): 'hung' | 'slow' {
    return this.#hosts.peek(host)?.[phase]?.overdue(ageMs) ?? 'hung';
  }

  /** `phase` of a request to `host`, armed as `armed`, outlived its timeout. */
  expired(host: string, phase: TimeoutPhase, armed: ArmedTimeout): void {
    if (!this.options.enabled || !armed.learned) return;
    this.#estimate(host, phase).expired(armed.level);
  }

  /** The learned timeout of `host`'s `phase` now (back-off included), or undefined while not in force. */
  timeoutOf(host: string, phase: TimeoutPhase, ceilingMs: number): number | undefined {
    if (!this.#hosts.has(host)) return undefined;
    const armed = this.arm(host, phase, ceilingMs);
    return armed.learned ? armed.ms : undefined;
  }

  /** The estimate of `host`'s `phase`, if it has one (tests, the status page). */
  estimate(host: string, phase: TimeoutPhase): PhaseEstimate | undefined {
    return this.#hosts.peek(host)?.[phase];
  }

  /** Hosts with estimates. */
  *hosts(): IterableIterator<string> {
    for (const [host] of this.#hosts.entries()) yield host;
  }

  /** [host, phase, ms] of every learned timeout in force now, under `ceilings` (the configured ones). */
  *learned(
    ceilings: Readonly<Record<TimeoutPhase, number>>,
  ): IterableIterator<[string, TimeoutPhase, number]> {
    for (const [host, estimates] of this.#hosts.entries()) {
      for (const phase of Object.keys(estimates) as TimeoutPhase[]) {
        const ms = this.timeoutOf(host, phase, ceilings[phase]);
        if (ms !== undefined) yield [host, phase, ms];
      }
    }
  }

  #estimate(host: string, phase: TimeoutPhase): PhaseEstimate {
    let h = this.#hosts.get(host);
    if (!h) {
      h = {};
      this.#hosts.set(host, h);
    }
    let e = h[phase];
    if (!e) {
      e = new PhaseEstimate();
      h[phase] = e;
    }
    return e;
  }
}
