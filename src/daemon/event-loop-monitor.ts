import { type EventLoopUtilization, monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { LoopLimit, type LoopLimitOptions } from '../core/limit/loop-limit.js';

/** The delay timer's resolution, ms; what a sample exceeds it by is lag. */
const RESOLUTION_MS = 10;

/** What the governor drives: the live HostLimiters (a reload replaces them). */
export interface GlobalLimitTarget {
  readonly globalMaxInflight: number;
  setGlobalLimit(limit: number): void;
  takeReached(): boolean;
}

export interface EventLoopMonitorOptions {
  /** Read at every window: a reload's options apply at the next one; undefined restores the ceiling. */
  readonly limit: () => LoopLimitOptions | undefined;
  readonly target: () => GlobalLimitTarget;
  readonly onLimitChange?: (limit: number, reason: string) => void;
  /** The governor's window, ms. @default 250 */
  readonly periodMs?: number;
  /** The lag reading's window, ms (rounded to whole governor windows). @default 1000 */
  readonly lagPeriodMs?: number;
  /** From this utilisation on, the lag reading is Infinity. @default 0.9 */
  readonly saturatedElu?: number;
}

export interface EventLoopMonitor {
  /**
   * How much of a just-measured round trip our own process may have added, ms: the lag over
   * the last lag window, or Infinity while the loop is saturated, when responses are read late
   * by more than any lag figure says, so latency samples say nothing about the server.
   */
  ownDelayMs(): number;
  stop(): void;
}

/**
 * One sampler of the event loop (perf_hooks delay and utilisation) for the global limit
 * (core/limit/loop-limit.ts) and the lag the per-host limits discount. The timer is unref'd:
 * it never keeps a finished `--once` run alive.
 */
export function startEventLoopMonitor(o: EventLoopMonitorOptions): EventLoopMonitor {
  const periodMs = o.periodMs ?? 250;
  const lagWindows = Math.max(1, Math.round((o.lagPeriodMs ?? 1000) / periodMs));
  const saturatedElu = o.saturatedElu ?? 0.9;
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let last = performance.eventLoopUtilization();
  const governor = loopGovernor(o, periodMs);
  const lag = { ms: 0, saturated: false, windows: 0, active: 0, idle: 0, delayNs: 0, count: 0 };
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const used: EventLoopUtilization = performance.eventLoopUtilization(now, last);
    last = now;
    const count = delay.count;
    const meanNs = count === 0 ? 0 : delay.mean;
    delay.reset();
    governor({ elu: used.utilization, lagMs: lagOf(meanNs, count) });
    lag.windows++;
    lag.active += used.active;
    lag.idle += used.idle;
    lag.delayNs += meanNs * count;
    lag.count += count;
    if (lag.windows < lagWindows) return;
    const total = lag.active + lag.idle;
    lag.ms = lagOf(lag.count === 0 ? 0 : lag.delayNs / lag.count, lag.count) ?? 0;
    lag.saturated = total > 0 && lag.active / total >= saturatedElu;
    Object.assign(lag, { windows: 0, active: 0, idle: 0, delayNs: 0, count: 0 });
  }, periodMs);
  timer.unref();
  return {
    ownDelayMs: () => (lag.saturated ? Number.POSITIVE_INFINITY : lag.ms),
    stop() {
      clearInterval(timer);
      delay.disable();
    },
  };
}

/** Mean delay beyond the resolution, ms; undefined when the timer never ran. */
function lagOf(meanNs: number, count: number): number | undefined {
  return count === 0 ? undefined : Math.max(0, meanNs / 1e6 - RESOLUTION_MS);
}

/** Sets the live limiters' global limit, at once (the start's burst) and at every window. */
function loopGovernor(o: EventLoopMonitorOptions, periodMs: number) {
  let key = '';
  let algo: LoopLimit | undefined;
  const current = (): LoopLimit | undefined => {
    const options = o.limit();
    const nextKey = JSON.stringify(options ?? null);
    if (nextKey !== key) {
      key = nextKey;
      algo = options ? new LoopLimit(options) : undefined;
      if (algo && o.onLimitChange) algo.onChange(o.onLimitChange);
    }
    return algo;
  };
  const apply = (t: GlobalLimitTarget, a: LoopLimit | undefined) =>
    t.setGlobalLimit(a ? a.limit : t.globalMaxInflight);
  apply(o.target(), current());
  return (w: { elu: number; lagMs: number | undefined }) => {
    const t = o.target();
    const a = current();
    // No sample in the window: the loop never got to the timer, it was blocked throughout.
    a?.onWindow({ elu: w.elu, lagMs: w.lagMs ?? periodMs, reached: t.takeReached() });
    apply(t, a);
  };
}
