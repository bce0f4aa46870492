import { startLoopSampler } from './loop-sampler.js';

export interface LagMonitor {
  /**
   * How much of a just-measured round trip our own process may have added, in ms: the
   * event-loop lag over the last second, or Infinity while the event loop is saturated
   * (utilisation ≥ saturatedElu). A saturated loop reads responses late by an amount no
   * lag figure captures, so its latency samples say nothing about the server.
   */
  ownDelayMs(): number;
  stop(): void;
}

/** Samples event-loop lag and utilisation every periodMs; the figures describe now, not the process's life. */
export function startLagMonitor(periodMs = 1000, saturatedElu = 0.9): LagMonitor {
  const sampler = startLoopSampler();
  let lag = 0;
  let saturated = false;
  const t = setInterval(() => {
    const w = sampler.take();
    lag = w.lagMs ?? 0;
    saturated = w.elu >= saturatedElu;
  }, periodMs);
  t.unref();
  return {
    ownDelayMs: () => (saturated ? Number.POSITIVE_INFINITY : lag),
    stop() {
      clearInterval(t);
      sampler.stop();
    },
  };
}
