import type { FetcherKind } from '../ports/control-plane.js';
import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';
import { ConcurrencyLimiter, type LimiterPermit } from './concurrency-limiter.js';
import { AimdLimit, type AimdOptions } from './limit/aimd.js';
import type { LimitAlgorithm } from './limit/limit.js';
import { Listeners } from './listeners.js';
import { LruMap } from './lru-map.js';

export { ConcurrencyLimiter, type LimiterPermit } from './concurrency-limiter.js';
export interface HostLimitersOptions {
  /** @default 512 */
  readonly globalMaxInflight?: number;
  /** @default 10000 */
  readonly maxHosts?: number;
  /** Ignored with `createLimit`. @default {} */
  readonly aimd?: AimdOptions;
  /** @default a new AimdLimit(aimd, clock, start) */
  readonly createLimit?: (host: string, kind: FetcherKind, start?: number) => LimitAlgorithm;
  /** A new host's start, when known (limit hints); undefined: the algorithm's initial limit. */
  readonly startLimit?: (host: string, kind: FetcherKind) => number | undefined;
}

export const hostLimitersDefaults = {
  globalMaxInflight: 512,
  maxHosts: 10_000,
  aimd: {},
} as const satisfies Omit<Required<HostLimitersOptions>, 'createLimit' | 'startLimit'>;

export const HOST_LIMITERS_BOUNDS = Object.freeze({
  globalMaxInflight: POSITIVE_INT,
  maxHosts: POSITIVE_INT,
} as const satisfies Record<'globalMaxInflight' | 'maxHosts', Bound>);

/** `host` undefined: any host may pass. */
export interface AvailableEvent {
  readonly host: string | undefined;
}

class HostLimiter extends ConcurrencyLimiter {
  readonly kind: FetcherKind;

  constructor(algorithm: LimitAlgorithm, clock: Clock, kind: FetcherKind) {
    super(algorithm, clock);
    this.kind = kind;
  }
}

export type LimitChangeListener = (
  host: string,
  limit: number,
  reason: string | undefined,
  kind: FetcherKind,
) => void;

/** Per-host limiters under a global ceiling; a host with requests in flight is never evicted (it would admit past its old limit). */
export class HostLimiters {
  readonly #clock: Clock;
  readonly #ceiling: number;
  /** The ceiling, or lower while the event loop is saturated. */
  #global: number;
  #reached = false;
  readonly #createLimit: (host: string, kind: FetcherKind, start?: number) => LimitAlgorithm;
  readonly #startLimit: ((host: string, kind: FetcherKind) => number | undefined) | undefined;
  readonly #initial = new Map<FetcherKind, number>();
  readonly #hosts: LruMap<string, HostLimiter>;
  readonly #listeners = new Listeners<[AvailableEvent]>('available');
  readonly #limitListeners = new Listeners<Parameters<LimitChangeListener>>('limitChange');
  #inflight = 0;

  constructor(options: HostLimitersOptions = {}, clock: Clock) {
    const o = { ...hostLimitersDefaults, ...options };
    this.#ceiling = checkNumber(
      'globalMaxInflight',
      o.globalMaxInflight,
      HOST_LIMITERS_BOUNDS.globalMaxInflight,
    );
    this.#global = this.#ceiling;
    checkNumber('maxHosts', o.maxHosts, HOST_LIMITERS_BOUNDS.maxHosts);
    // Validate now, not at the first request to some host.
    if (!options.createLimit) new AimdLimit(o.aimd, clock);
    this.#createLimit = options.createLimit ?? ((_host, _kind, start) => new AimdLimit(o.aimd, clock, start));
    this.#startLimit = options.startLimit;
    this.#clock = clock;
    this.#hosts = new LruMap(o.maxHosts, (limiter) => limiter.inflight === 0);
  }

  get inflight(): number {
    return this.#inflight;
  }

  get globalLimit(): number {
    return this.#global;
  }

  get globalMaxInflight(): number {
    return this.#ceiling;
  }

  /** Within [1, globalMaxInflight]; a raise lets waiting hosts pass at once. */
  setGlobalLimit(limit: number): void {
    const next = Math.max(1, Math.min(this.#ceiling, Math.floor(limit)));
    if (next === this.#global) return;
    const wasFull = this.#inflight >= this.#global;
    this.#global = next;
    if (wasFull && this.#inflight < next) this.#emit(undefined);
  }

  /** Resets on each call. */
  takeReached(): boolean {
    const reached = this.#reached || this.#inflight >= this.#global;
    this.#reached = false;
    return reached;
  }

  get size(): number {
    return this.#hosts.size;
  }

  /** A host not seen yet gets where its limit will start, without making its limiter (its first request's kind decides). */
  limitOf(host: string, kind: FetcherKind = 'http'): number {
    const limiter = this.#hosts.peek(host);
    if (limiter) return limiter.limit;
    const start = this.#startLimit?.(host, kind);
    if (start !== undefined) return start;
    let initial = this.#initial.get(kind);
    if (initial === undefined) {
      initial = this.#createLimit(host, kind).limit;
      this.#initial.set(kind, initial);
    }
    return initial;
  }

  /** Another fetcher now serves the host: its limit starts again; permits in flight release on the old limiter. */
  setKind(host: string, kind: FetcherKind): void {
    if (this.#hosts.peek(host)) this.#hosts.delete(host);
    this.#limiter(host, kind);
  }

  resume(host: string): void {
    this.#hosts.peek(host)?.algorithm.resume?.();
  }

  known(host: string): { readonly limit: number; readonly kind: FetcherKind } | undefined {
    const limiter = this.#hosts.peek(host);
    return limiter && { limit: limiter.limit, kind: limiter.kind };
  }

  inflightOf(host: string): number {
    return this.#hosts.peek(host)?.inflight ?? 0;
  }

  /** A stalled host has room only with nothing in flight. */
  hasRoom(host: string, kind: FetcherKind = 'http'): boolean {
    const limiter = this.#hosts.peek(host);
    if (!limiter) return this.limitOf(host, kind) > 0;
    return limiter.inflight < (limiter.stalled ? 1 : limiter.limit);
  }

  /** Monotonic ms; -Infinity if never, or forgotten. */
  lastAnswerAt(host: string): number {
    return this.#hosts.peek(host)?.lastAnswerAt ?? Number.NEGATIVE_INFINITY;
  }

  stalled(host: string): boolean {
    return this.#hosts.peek(host)?.stalled ?? false;
  }

  tryAcquire(host: string, kind: FetcherKind = 'http'): LimiterPermit | undefined {
    if (this.#inflight >= this.#global) {
      this.#reached = true;
      return undefined;
    }
    const permit = this.#limiter(host, kind).tryAcquire();
    if (!permit) return undefined;
    if (++this.#inflight >= this.#global) this.#reached = true;
    let done = false;
    // The global slot is released before the host notifies, so a listener for "host X has a slot" finds one.
    const release = (report: () => void): void => {
      if (done) return;
      done = true;
      const wasFull = this.#inflight >= this.#global;
      this.#inflight--;
      report();
      // Below a lowered limit, a release may leave the ceiling still reached.
      if (wasFull && this.#inflight < this.#global) this.#emit(undefined);
    };
    return {
      success: (sample) => release(() => permit.success(sample)),
      dropped: () => release(() => permit.dropped()),
      hung: (overload) => release(() => permit.hung(overload)),
      ignore: () => release(() => permit.ignore()),
    };
  }

  onAvailable(listener: (event: AvailableEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  *hosts(): IterableIterator<{ host: string; limit: number; inflight: number }> {
    for (const [host, limiter] of this.#hosts.entries()) {
      yield { host, limit: limiter.limit, inflight: limiter.inflight };
    }
  }

  /** Debug logs and limit hints listen. */
  onLimitChange(listener: LimitChangeListener): () => void {
    return this.#limitListeners.add(listener);
  }

  #emit(host: string | undefined): void {
    if (this.#listeners.size > 0) this.#listeners.emit({ host });
  }

  #limiter(host: string, kind: FetcherKind): ConcurrencyLimiter {
    let limiter = this.#hosts.get(host);
    if (!limiter) {
      const algorithm = this.#createLimit(host, kind, this.#startLimit?.(host, kind));
      algorithm.onChange((limit, reason) => {
        this.#limitListeners.emit(host, limit, reason, kind);
      });
      limiter = new HostLimiter(algorithm, this.#clock, kind);
      limiter.onAvailable(() => {
        // A host slot is usable only with a global slot.
        if (this.#inflight < this.#global) this.#emit(host);
      });
      this.#hosts.set(host, limiter);
    }
    return limiter;
  }
}
