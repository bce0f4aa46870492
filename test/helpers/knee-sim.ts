import type { FakeClock, Random } from '../../src/core/clock.js';
import type { ConcurrencyLimiter } from '../../src/core/limiter.js';

/**
 * A simulated server with a capacity knee: up to `knee` concurrent requests it answers in
 * `baseMs`; above, requests share its capacity, so latency grows in proportion to the load
 * (Little's law: latency = baseMs × inflight / knee, throughput capped at knee / baseMs).
 * A closed-loop client with an endless backlog keeps every permit of `limiter` busy.
 * Time is a FakeClock: a minute of traffic runs in milliseconds, with no real sleeps.
 */
export interface KneeSimOptions {
  readonly clock: FakeClock;
  readonly limiter: ConcurrencyLimiter;
  readonly knee: number;
  readonly baseMs: number;
  readonly durationMs: number;
  /** Multiplicative latency noise: each latency × (1 ± jitter). @default 0 */
  readonly jitter?: number;
  readonly random?: Random;
  /** Event-loop lag reported with every sample, or a function of the sim time (ms). @default 0 */
  readonly lagMs?: number | ((atMs: number) => number);
  /** Latency multiplier as a function of simulated time, to model a server getting slower. @default 1 */
  readonly slowdown?: (atMs: number) => number;
  /**
   * The server is down from fromMs to toMs (sim time): a request started then fails as a drop
   * (a connection reset) after baseMs; with `failEvery` n, only every n-th one does (a flaky
   * host). With `breaker`, nothing is sent from the first failure to toMs, and the first
   * success after it calls the algorithm's resume(), as a half-open probe that closes the
   * breaker does; without, the client keeps sending into the outage.
   */
  readonly outage?: {
    readonly fromMs: number;
    readonly toMs: number;
    readonly breaker?: boolean;
    readonly failEvery?: number;
  };
}

export interface KneeSimResult {
  /** (time since start, limit) at the start and at every limit change. */
  readonly trace: readonly { readonly atMs: number; readonly limit: number; readonly reason?: string }[];
  readonly completed: number;
  /**
   * Time-weighted mean, min and max of the limit over [fromMs, toMs]. min and max leave out the
   * short windows in which a relative AimdLimit pins concurrency to re-measure its baseline.
   */
  window(fromMs: number, toMs?: number): { mean: number; min: number; max: number };
}

export function runKneeSim(options: KneeSimOptions): KneeSimResult {
  const { clock, limiter, knee, baseMs, durationMs, jitter = 0, lagMs = 0 } = options;
  const random = options.random ?? seededRandom(42);
  const slowdown = options.slowdown ?? (() => 1);
  const start = clock.monotonic();
  const trace: { atMs: number; limit: number; reason?: string }[] = [{ atMs: 0, limit: limiter.limit }];
  let serverInflight = 0;
  let completed = 0;
  let stopped = false;
  const outage = options.outage;
  let broken = false;
  let waking = false;
  let sentInOutage = 0;
  const down = (atMs: number) => outage !== undefined && atMs >= outage.fromMs && atMs < outage.toMs;

  const fill = (): void => {
    for (;;) {
      if (stopped) return;
      const startedMs = clock.monotonic() - start;
      if (broken && down(startedMs)) {
        // The breaker is open: wake up when the server is back.
        if (!waking)
          clock.setTimer(() => {
            waking = false;
            fill();
          }, outage!.toMs - startedMs);
        waking = true;
        return;
      }
      const permit = limiter.tryAcquire();
      if (!permit) return;
      if (down(startedMs) && ++sentInOutage % (outage!.failEvery ?? 1) === 0) {
        clock.setTimer(() => {
          if (outage!.breaker) broken = true;
          permit.dropped();
        }, baseMs);
        continue;
      }
      serverInflight++;
      const noise = 1 + jitter * (2 * random() - 1);
      const load = Math.max(1, serverInflight / knee);
      const latency = baseMs * load * noise * slowdown(clock.monotonic() - start);
      const lag = typeof lagMs === 'number' ? lagMs : lagMs(clock.monotonic() - start);
      clock.setTimer(() => {
        serverInflight--;
        completed++;
        permit.success({ rttMs: latency + lag, lagMs: lag });
        if (broken) {
          broken = false;
          limiter.algorithm.resume?.();
        }
      }, latency + lag);
    }
  };
  const unsubscribe = limiter.onAvailable(fill);
  // AimdLimit passes the reason of each change as a second argument.
  const unwatch = limiter.algorithm.onChange((limit: number, reason?: string) => {
    trace.push({ atMs: clock.monotonic() - start, limit, reason });
  });
  fill();
  clock.advance(durationMs);
  stopped = true;
  unsubscribe();
  unwatch();

  return {
    trace,
    completed,
    window(fromMs, toMs = durationMs) {
      let sum = 0;
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < trace.length; i++) {
        const point = trace[i]!;
        const end = Math.min(toMs, trace[i + 1]?.atMs ?? toMs);
        const begin = Math.max(fromMs, point.atMs);
        if (end <= begin) continue;
        sum += point.limit * (end - begin);
        const probe = point.reason === 'probe' && point.limit < (trace[i - 1]?.limit ?? 0);
        if (probe) continue;
        min = Math.min(min, point.limit);
        max = Math.max(max, point.limit);
      }
      return { mean: sum / (toMs - fromMs), min, max };
    },
  };
}

/** A small deterministic PRNG (mulberry32) so simulations are reproducible. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
