import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import { LruMap } from './lru-map.js';

/**
 * Hedged requests ("The Tail at Scale", Dean and Barroso, CACM 2013; gRPC's hedging policy):
 * a GET or HEAD that has waited `delayRatio` x its host's 95th percentile time to headers is
 * sent a second time, the first answer wins and the other request is cancelled. A hung request
 * then costs its host's p95 and a round trip instead of its learned timeout and a retry. Each
 * hedge is a request more to the host, so hedges are held to `maxPercent` of the requests (a
 * budget that each request refills by maxPercent/100, and at most MAX_CREDIT ahead: a quiet hour
 * saves no burst of hedges). Off by default.
 */
export interface HedgeOptions {
  /** @default false */
  readonly enabled?: boolean;
  /** A request is hedged once it waited this many times its host's p95 time to headers. @default 1.5 */
  readonly delayRatio?: number;
  /** Hedges are at most this percentage of the requests. @default 5 */
  readonly maxPercent?: number;
  /** Hosts whose recent times are kept; the least recently used beyond this are forgotten. @default 10000 */
  readonly maxHosts?: number;
}

export const hedgeDefaults = {
  enabled: false,
  delayRatio: 1.5,
  maxPercent: 5,
  maxHosts: 10_000,
} as const satisfies Required<HedgeOptions>;

/** The bounds of each number option (the config's fetch.hedge is built from them). */
export const HEDGE_BOUNDS = Object.freeze({
  delayRatio: { min: 1, max: 100 },
  maxPercent: { min: 0, minExclusive: true, max: 100 },
  maxHosts: POSITIVE_INT,
} as const satisfies Record<Exclude<keyof HedgeOptions, 'enabled'>, Bound>);

/** The times to headers a host's p95 is read from: the last RECENT, once there are MIN_RECENT. */
const RECENT = 64;
const MIN_RECENT = 20;
/** Hedges the budget may hold. */
const MAX_CREDIT = 10;

/** The last RECENT times to headers of one host, and their p95 (read again every 8 samples). */
class RecentTimes {
  readonly #ring = new Float64Array(RECENT);
  #count = 0;
  #p95: number | undefined;

  add(ms: number): void {
    this.#ring[this.#count % RECENT] = ms;
    this.#count++;
    if (this.#count >= MIN_RECENT && (this.#p95 === undefined || this.#count % 8 === 0)) {
      const n = Math.min(this.#count, RECENT);
      const sorted = Array.from(this.#ring.subarray(0, n)).sort((a, b) => a - b);
      this.#p95 = sorted[Math.min(n - 1, Math.ceil(0.95 * n) - 1)];
    }
  }

  get p95(): number | undefined {
    return this.#p95;
  }
}

export class HedgePolicy {
  readonly options: Required<HedgeOptions>;
  readonly #hosts: LruMap<string, RecentTimes>;
  #credit = 1;

  constructor(options: HedgeOptions = {}) {
    const o = { ...hedgeDefaults, ...options };
    checkNumber('delayRatio', o.delayRatio, HEDGE_BOUNDS.delayRatio);
    checkNumber('maxPercent', o.maxPercent, HEDGE_BOUNDS.maxPercent);
    checkNumber('maxHosts', o.maxHosts, HEDGE_BOUNDS.maxHosts);
    this.options = o;
    this.#hosts = new LruMap(o.maxHosts);
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  /** A request to `host` got its headers after `ms`. */
  sample(host: string, ms: number): void {
    if (!this.options.enabled) return;
    let h = this.#hosts.get(host);
    if (!h) {
      h = new RecentTimes();
      this.#hosts.set(host, h);
    }
    h.add(ms);
  }

  /**
   * A request to `host` goes out: how long it may wait for its headers before it is hedged, or
   * undefined when it is not (off, or too few of the host's times known). Refills the budget.
   */
  delayFor(host: string): number | undefined {
    if (!this.options.enabled) return undefined;
    this.#credit = Math.min(MAX_CREDIT, this.#credit + this.options.maxPercent / 100);
    const p95 = this.#hosts.get(host)?.p95;
    return p95 === undefined ? undefined : Math.ceil(this.options.delayRatio * p95);
  }

  /** A hedge is about to go out: true (and spent) if the budget holds one. */
  take(): boolean {
    if (this.#credit < 1) return false;
    this.#credit -= 1;
    return true;
  }

  /** The host's p95 time to headers, once known. */
  p95Of(host: string): number | undefined {
    return this.#hosts.peek(host)?.p95;
  }
}
