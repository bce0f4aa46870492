import { LoopLimit, type LoopLimitOptions } from '../core/limit/loop-limit.js';
import { startLoopSampler } from './loop-sampler.js';

/** What the governor drives: the live HostLimiters (a reload replaces them). */
export interface GlobalLimitTarget {
  readonly globalMaxInflight: number;
  setGlobalLimit(limit: number): void;
  takeReached(): boolean;
}

export interface LoopGovernor {
  stop(): void;
}

/**
 * Measures the event loop every periodMs (utilisation, mean delay) and sets the live limiters'
 * global limit from LoopLimit (core/limit/loop-limit.ts). `options()` is read at every window,
 * so a reload that changes concurrency.global, minGlobal or loopLagTargetMs applies at the next
 * one; undefined (globalAdaptive false) restores the ceiling. The timer is unref'd: it never
 * keeps a finished `--once` run alive.
 */
export function startLoopGovernor(
  options: () => LoopLimitOptions | undefined,
  target: () => GlobalLimitTarget,
  onChange?: (limit: number, reason: string) => void,
  periodMs = 250,
): LoopGovernor {
  const sampler = startLoopSampler();
  let key = '';
  let algo: LoopLimit | undefined;
  /** The algorithm for the options in force (a reload may change them). */
  const current = (): LoopLimit | undefined => {
    const o = options();
    const nextKey = JSON.stringify(o ?? null);
    if (nextKey !== key) {
      key = nextKey;
      algo = o ? new LoopLimit(o) : undefined;
      if (algo && onChange) algo.onChange(onChange);
    }
    return algo;
  };
  const apply = (t: GlobalLimitTarget, a: LoopLimit | undefined) =>
    t.setGlobalLimit(a ? a.limit : t.globalMaxInflight);
  // At once, not a window later: the first window is the start's burst of connections.
  apply(target(), current());
  const timer = setInterval(() => {
    const t = target();
    const a = current();
    const w = sampler.take();
    // No sample in the window: the loop never got to the timer, it was blocked throughout.
    const lagMs = w.lagMs ?? periodMs;
    const reached = t.takeReached();
    a?.onWindow({ elu: w.elu, lagMs, reached });
    apply(t, a);
  }, periodMs);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sampler.stop();
    },
  };
}
