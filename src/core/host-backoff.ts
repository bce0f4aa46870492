import { type Bound, MS, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock, Random } from './clock.js';
import { LruMap } from './lru-map.js';

export interface HostBackoffOptions {
  /** Pause after a 429/503 without Retry-After; doubles with each further one. @default 60000 */
  readonly initialPauseMs?: number;
  /** Caps both pauses. @default 3600000 */
  readonly maxPauseMs?: number;
  /** @default 1800000 */
  readonly forgiveAfterMs?: number;
  /** @default 50 */
  readonly forgiveAfterSuccesses?: number;
  /** Lengthens each pause by up to this fraction, so hosts do not all resume at once. @default 0.1 */
  readonly jitter?: number;
  /** @default 10000 */
  readonly maxHosts?: number;
}

export const hostBackoffDefaults = {
  initialPauseMs: 60_000,
  maxPauseMs: 3_600_000,
  forgiveAfterMs: 1_800_000,
  forgiveAfterSuccesses: 50,
  jitter: 0.1,
  maxHosts: 10_000,
} as const satisfies Required<HostBackoffOptions>;

export const HOST_BACKOFF_BOUNDS = Object.freeze({
  initialPauseMs: MS,
  maxPauseMs: MS,
  forgiveAfterMs: MS,
  forgiveAfterSuccesses: POSITIVE_INT,
  jitter: { min: 0, max: 1 },
  maxHosts: POSITIVE_INT,
} as const satisfies Record<keyof HostBackoffOptions, Bound>);

interface HostState {
  strikes: number;
  pausedUntil: number;
  lastThrottleAt: number;
  successStreak: number;
}

/** Per-host pause after a throttle (StormCrawler's policy). Wall-clock: Retry-After dates are. */
export class HostBackoff {
  readonly #o: Required<HostBackoffOptions>;
  readonly #clock: Clock;
  readonly #random: Random;
  readonly #hosts: LruMap<string, HostState>;

  constructor(options: HostBackoffOptions = {}, clock: Clock, random: Random) {
    const o = { ...hostBackoffDefaults, ...options };
    const b = HOST_BACKOFF_BOUNDS;
    checkNumber('maxPauseMs', o.maxPauseMs, b.maxPauseMs);
    checkNumber('initialPauseMs', o.initialPauseMs, {
      ...b.initialPauseMs,
      max: o.maxPauseMs,
      maxOf: 'maxPauseMs',
    });
    checkNumber('forgiveAfterMs', o.forgiveAfterMs, b.forgiveAfterMs);
    checkNumber('forgiveAfterSuccesses', o.forgiveAfterSuccesses, b.forgiveAfterSuccesses);
    checkNumber('jitter', o.jitter, b.jitter);
    checkNumber('maxHosts', o.maxHosts, b.maxHosts);
    this.#o = o;
    this.#clock = clock;
    this.#random = random;
    // Forgetting a paused host would let it be hammered again.
    this.#hosts = new LruMap(o.maxHosts, (s) => s.pausedUntil <= this.#clock.now());
  }

  hostPausedUntil(host: string): number | undefined {
    const state = this.#hosts.peek(host);
    return state && state.pausedUntil > this.#clock.now() ? state.pausedUntil : undefined;
  }

  strikes(host: string): number {
    const state = this.#hosts.peek(host);
    if (!state || this.#clock.now() - state.lastThrottleAt >= this.#o.forgiveAfterMs) return 0;
    return state.strikes;
  }

  /** Retry-After is obeyed up to maxPauseMs; a pause never shortens an existing one. */
  onThrottle(host: string, retryAfterMs?: number): number {
    const now = this.#clock.now();
    const state = this.#hosts.get(host) ?? {
      strikes: 0,
      pausedUntil: 0,
      lastThrottleAt: now,
      successStreak: 0,
    };
    if (now - state.lastThrottleAt >= this.#o.forgiveAfterMs) state.strikes = 0;
    state.strikes++;
    state.successStreak = 0;
    state.lastThrottleAt = now;
    const base =
      retryAfterMs !== undefined && retryAfterMs > 0
        ? retryAfterMs
        : this.#o.initialPauseMs * 2 ** Math.min(state.strikes - 1, 52);
    // Jitter only lengthens: a Retry-After is never undercut.
    const pause = Math.min(this.#o.maxPauseMs, base) * (1 + this.#o.jitter * this.#random());
    state.pausedUntil = Math.max(state.pausedUntil, Math.round(now + pause));
    this.#hosts.set(host, state);
    return state.pausedUntil;
  }

  onSuccess(host: string): void {
    const state = this.#hosts.peek(host);
    if (!state) return;
    state.successStreak++;
    if (state.successStreak >= this.#o.forgiveAfterSuccesses && state.pausedUntil <= this.#clock.now()) {
      this.#hosts.delete(host);
    }
  }

  get size(): number {
    return this.#hosts.size;
  }
}
