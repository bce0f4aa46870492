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
  /** Ceiling on requests in flight over all hosts together. @default 512 */
  readonly globalMaxInflight?: number;
  /** Idle hosts beyond this many are forgotten, least recently used first. @default 10000 */
  readonly maxHosts?: number;
  /** Options of the per-host AimdLimit (ignored when `createLimit` is given). @default {} */
  readonly aimd?: AimdOptions;
  /**
   * Makes the limit algorithm of a new host, for the kind of its first request; `start` is
   * what startLimit said for it. @default a new AimdLimit(aimd, clock, start)
   */
  readonly createLimit?: (host: string, kind: FetcherKind, start?: number) => LimitAlgorithm;
  /**
   * Where a new host's limit starts, when something is known of it (the limits other daemons of
   * a shared frontier found: limit hints); undefined: the algorithm's initial limit.
   */
  readonly startLimit?: (host: string, kind: FetcherKind) => number | undefined;
}

export const hostLimitersDefaults = {
  globalMaxInflight: 512,
  maxHosts: 10_000,
  aimd: {},
} as const satisfies Omit<Required<HostLimitersOptions>, 'createLimit' | 'startLimit'>;

/** The bounds of each number option (the config's concurrency.global). */
export const HOST_LIMITERS_BOUNDS = Object.freeze({
  globalMaxInflight: POSITIVE_INT,
  maxHosts: POSITIVE_INT,
} as const satisfies Record<'globalMaxInflight' | 'maxHosts', Bound>);

/** Payload of HostLimiters.onAvailable: which host freed a slot (undefined: any host may pass). */
export interface AvailableEvent {
  readonly host: string | undefined;
}

/** A host's limiter, for the kind of fetcher its limit was made for. */
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

/**
 * One adaptive limiter per host under a global ceiling. Per-host limiters are created lazily
 * and kept in an LRU map; a host with requests in flight is never evicted (its new limiter would
 * start from scratch and admit past the old one's limit), so the map holds at most
 * max(maxHosts, globalMaxInflight) entries.
 */
export class HostLimiters {
  readonly #clock: Clock;
  /** concurrency.global: the ceiling setGlobalLimit never exceeds. */
  readonly #ceiling: number;
  /** The global limit in force (the ceiling, or lower while the event loop is saturated). */
  #global: number;
  /** Whether requests in flight reached the global limit since takeReached() last asked. */
  #reached = false;
  readonly #createLimit: (host: string, kind: FetcherKind, start?: number) => LimitAlgorithm;
  readonly #startLimit: ((host: string, kind: FetcherKind) => number | undefined) | undefined;
  /** The initial limit of each kind, for a host not seen yet. */
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
    // Validate the AIMD options now rather than at the first request to some host.
    if (!options.createLimit) new AimdLimit(o.aimd, clock);
    this.#createLimit = options.createLimit ?? ((_host, _kind, start) => new AimdLimit(o.aimd, clock, start));
    this.#startLimit = options.startLimit;
    this.#clock = clock;
    this.#hosts = new LruMap(o.maxHosts, (limiter) => limiter.inflight === 0);
  }

  get inflight(): number {
    return this.#inflight;
  }

  /** The global limit in force: globalMaxInflight, or lower after setGlobalLimit. */
  get globalLimit(): number {
    return this.#global;
  }

  /** The configured ceiling of requests in flight over all hosts. */
  get globalMaxInflight(): number {
    return this.#ceiling;
  }

  /**
   * Lowers (or restores) the global limit, within [1, globalMaxInflight]. Requests already in
   * flight are not touched; a raise lets waiting hosts pass at once.
   */
  setGlobalLimit(limit: number): void {
    const next = Math.max(1, Math.min(this.#ceiling, Math.floor(limit)));
    if (next === this.#global) return;
    const wasFull = this.#inflight >= this.#global;
    this.#global = next;
    if (wasFull && this.#inflight < next) this.#emit(undefined);
  }

  /** Whether requests in flight reached the global limit since the last call (then resets). */
  takeReached(): boolean {
    const reached = this.#reached || this.#inflight >= this.#global;
    this.#reached = false;
    return reached;
  }

  /** Number of hosts with state. */
  get size(): number {
    return this.#hosts.size;
  }

  /**
   * The host's current limit; for a host not seen yet where its limit will start (startLimit,
   * else the initial limit of `kind`), without making its limiter: that is made by its first
   * request, for that request's kind. (The scheduler buffers a new host for it: a daemon that
   * joins a crawl leases what its limit will run, not twice the initial limit.)
   */
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

  /**
   * The host's requests are now served by another fetcher (render kind auto decided it): its
   * limit starts again from that fetcher's, as a new host's would. Requests in flight release
   * on the limiter they took; the new one counts only those admitted after.
   */
  setKind(host: string, kind: FetcherKind): void {
    if (this.#hosts.peek(host)) this.#hosts.delete(host);
    this.#limiter(host, kind);
  }

  /** The host is back after an outage: let its limit grow fast again (LimitAlgorithm.resume). */
  resume(host: string): void {
    this.#hosts.peek(host)?.algorithm.resume?.();
  }

  /** The host's limit and its kind, if it has a limiter (limitOf without the initial limit). */
  known(host: string): { readonly limit: number; readonly kind: FetcherKind } | undefined {
    const limiter = this.#hosts.peek(host);
    return limiter && { limit: limiter.limit, kind: limiter.kind };
  }

  inflightOf(host: string): number {
    return this.#hosts.peek(host)?.inflight ?? 0;
  }

  /** Whether the host may take another request now: under its limit, or, stalled, with nothing in flight. */
  hasRoom(host: string, kind: FetcherKind = 'http'): boolean {
    const limiter = this.#hosts.peek(host);
    if (!limiter) return this.limitOf(host, kind) > 0;
    return limiter.inflight < (limiter.stalled ? 1 : limiter.limit);
  }

  /** When the host last answered a request in time (monotonic ms; -Infinity if never, or forgotten). */
  lastAnswerAt(host: string): number {
    return this.#hosts.peek(host)?.lastAnswerAt ?? Number.NEGATIVE_INFINITY;
  }

  /** Whether a hung request left the host with one probe in flight (LimiterPermit.hung). */
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
    // The global slot is released before the host limiter notifies, so a listener that
    // reacts to "host X has a slot" also finds a global slot. When the global ceiling was
    // the bottleneck, every host may pass again: that is the { host: undefined } event.
    const release = (report: () => void): void => {
      if (done) return;
      done = true;
      const wasFull = this.#inflight >= this.#global;
      this.#inflight--;
      report();
      // Below a lowered limit (setGlobalLimit), a release may leave the ceiling still reached.
      if (wasFull && this.#inflight < this.#global) this.#emit(undefined);
    };
    return {
      success: (sample) => release(() => permit.success(sample)),
      dropped: () => release(() => permit.dropped()),
      hung: (overload) => release(() => permit.hung(overload)),
      ignore: () => release(() => permit.ignore()),
    };
  }

  /** Called whenever a slot may have become free (per host or globally); returns an unsubscribe. */
  onAvailable(listener: (event: AvailableEvent) => void): () => void {
    return this.#listeners.add(listener);
  }

  /** Per-host state for metrics and the status page. */
  *hosts(): IterableIterator<{ host: string; limit: number; inflight: number }> {
    for (const [host, limiter] of this.#hosts.entries()) {
      yield { host, limit: limiter.limit, inflight: limiter.inflight };
    }
  }

  /** Called whenever a host's limit changes (debug logs, limit hints); returns an unsubscribe. */
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
        // A host slot is only usable if there is also a global slot.
        if (this.#inflight < this.#global) this.#emit(host);
      });
      this.#hosts.set(host, limiter);
    }
    return limiter;
  }
}
