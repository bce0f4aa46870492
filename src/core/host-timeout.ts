import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import { LruMap } from './lru-map.js';
import type { TimeoutPhase } from './timeout-phase.js';

export { TIMEOUT_PHASES, type TimeoutPhase } from './timeout-phase.js';

/**
 * Per-host learned timeouts, TCP's RTO (RFC 6298) per phase: max(floorMs, minRatio × SRTT, SRTT + factor × RTTVAR),
 * capped by the configured one and doubled per expiry. docs/control-plane.md says why each rule.
 */

export interface AdaptiveTimeoutOptions {
  /** false: the configured timeouts only. @default true */
  readonly enabled?: boolean;
  /** @default 250 */
  readonly floorMs?: number;
  /** K of RFC 6298. @default 4 */
  readonly factor?: number;
  /** A slow host's deviation is tiny, so SRTT + K × RTTVAR alone would cut its slower pages. @default 2 */
  readonly minRatio?: number;
  /** @default 5 */
  readonly minSamples?: number;
  /** @default 10000 */
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

export const ADAPTIVE_TIMEOUT_BOUNDS = Object.freeze({
  floorMs: { min: 1, max: 600_000, integer: true },
  factor: { min: 1, max: 16 },
  minRatio: { min: 1, max: 16 },
  minSamples: { min: 1, max: 1000, integer: true },
  maxHosts: POSITIVE_INT,
} as const satisfies Record<Exclude<keyof AdaptiveTimeoutOptions, 'enabled'>, Bound>);

const ALPHA = 1 / 8;
const BETA = 1 / 4;
const RECENT_HALF = 4;
const MAX_LEVEL = 20;

export interface ArmedTimeout {
  readonly ms: number;
  readonly learned: boolean;
  /** An expiry backs off only if armed at the current level. */
  readonly level: number;
}

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

  get level(): number {
    return this.#level;
  }

  #recent = 0;
  #older = 0;
  #inHalf = 0;

  get recentMaxMs(): number {
    return Math.max(this.#recent, this.#older);
  }

  /** Past its timeout: slow if the host's last answers took half as long (a loaded host or process), else hung. */
  overdue(ageMs: number): 'hung' | 'slow' {
    return 2 * this.recentMaxMs >= ageMs ? 'slow' : 'hung';
  }

  /** RFC 6298 §2.2-2.3; ends the back-off (§5.7). */
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

  /** Backs off once per level (§5.5). */
  expired(level: number): void {
    if (level >= this.#level) this.#level = Math.min(MAX_LEVEL, level + 1);
  }

  base(o: Required<AdaptiveTimeoutOptions>, ceilingMs: number): number | undefined {
    if (!o.enabled || this.#samples < o.minSamples) return undefined;
    const ms = Math.max(o.floorMs, o.minRatio * this.#srtt, this.#srtt + o.factor * this.#rttvar);
    return Math.min(ceilingMs, Math.ceil(ms));
  }

  arm(o: Required<AdaptiveTimeoutOptions>, ceilingMs: number): ArmedTimeout {
    const base = this.base(o, ceilingMs);
    if (base === undefined) return { ms: ceilingMs, learned: false, level: this.#level };
    const ms = Math.min(ceilingMs, base * 2 ** this.#level);
    return { ms, learned: ms < ceilingMs, level: this.#level };
  }
}

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

  get size(): number {
    return this.#hosts.size;
  }

  arm(host: string, phase: TimeoutPhase, ceilingMs: number): ArmedTimeout {
    const h = this.#hosts.get(host);
    const e = h?.[phase];
    if (!e || !this.options.enabled) return { ms: ceilingMs, learned: false, level: 0 };
    const armed = e.arm(this.options, ceilingMs);
    if (phase !== 'body' || !armed.learned) return armed;
    // A body may go silent as long as its host takes to answer: a lost packet costs an RTO plus a round trip.
    const headers = h.headers?.base(this.options, ceilingMs);
    if (headers === undefined) return { ms: ceilingMs, learned: false, level: armed.level };
    const ms = Math.min(ceilingMs, Math.max(armed.ms, headers));
    return { ms, learned: ms < ceilingMs, level: armed.level };
  }

  sample(host: string, phase: TimeoutPhase, ms: number): void {
    if (!this.options.enabled) return;
    this.#estimate(host, phase).sample(ms);
  }

  overdue(host: string, phase: TimeoutPhase, ageMs: number): 'hung' | 'slow' {
    return this.#hosts.peek(host)?.[phase]?.overdue(ageMs) ?? 'hung';
  }

  expired(host: string, phase: TimeoutPhase, armed: ArmedTimeout): void {
    if (!this.options.enabled || !armed.learned) return;
    this.#estimate(host, phase).expired(armed.level);
  }

  timeoutOf(host: string, phase: TimeoutPhase, ceilingMs: number): number | undefined {
    if (!this.#hosts.has(host)) return undefined;
    const armed = this.arm(host, phase, ceilingMs);
    return armed.learned ? armed.ms : undefined;
  }

  estimate(host: string, phase: TimeoutPhase): PhaseEstimate | undefined {
    return this.#hosts.peek(host)?.[phase];
  }

  *hosts(): IterableIterator<string> {
    for (const [host] of this.#hosts.entries()) yield host;
  }

  /** [host, phase, ms] of every learned timeout in force. */
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
