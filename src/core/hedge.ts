import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import { LruMap } from './lru-map.js';

/**
 * Hedged requests (Dean and Barroso, "The Tail at Scale"): a GET waiting `delayRatio` × its host's p95 is sent
 * again and the first answer wins, held to `maxPercent` of requests by a budget. Off by default.
 */
export interface HedgeOptions {
  /** @default false */
  readonly enabled?: boolean;
  /** @default 1.5 */
  readonly delayRatio?: number;
  /** @default 5 */
  readonly maxPercent?: number;
  /** @default 10000 */
  readonly maxHosts?: number;
}

export const hedgeDefaults = {
  enabled: false,
  delayRatio: 1.5,
  maxPercent: 5,
  maxHosts: 10_000,
} as const satisfies Required<HedgeOptions>;

export const HEDGE_BOUNDS = Object.freeze({
  delayRatio: { min: 1, max: 100 },
  maxPercent: { min: 0, minExclusive: true, max: 100 },
  maxHosts: POSITIVE_INT,
} as const satisfies Record<Exclude<keyof HedgeOptions, 'enabled'>, Bound>);

const RECENT = 64;
const MIN_RECENT = 20;
/** A quiet hour saves no burst of hedges. */
const MAX_CREDIT = 10;

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

  sample(host: string, ms: number): void {
    if (!this.options.enabled) return;
    let h = this.#hosts.get(host);
    if (!h) {
      h = new RecentTimes();
      this.#hosts.set(host, h);
    }
    h.add(ms);
  }

  /** Undefined when not hedged (off, or too few times known). Refills the budget. */
  delayFor(host: string): number | undefined {
    if (!this.options.enabled) return undefined;
    this.#credit = Math.min(MAX_CREDIT, this.#credit + this.options.maxPercent / 100);
    const p95 = this.#hosts.get(host)?.p95;
    return p95 === undefined ? undefined : Math.ceil(this.options.delayRatio * p95);
  }

  take(): boolean {
    if (this.#credit < 1) return false;
    this.#credit -= 1;
    return true;
  }

  p95Of(host: string): number | undefined {
    return this.#hosts.peek(host)?.p95;
  }
}
