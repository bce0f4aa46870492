import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

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
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let lag = 0;
  let saturated = false;
  let lastElu = performance.eventLoopUtilization();
  const t = setInterval(() => {
    // The mean includes the 10 ms sampling resolution itself; what exceeds it is lag.
    lag = Number.isFinite(h.mean) ? Math.max(0, h.mean / 1e6 - 10) : 0;
    h.reset();
    const elu = performance.eventLoopUtilization(lastElu);
    lastElu = performance.eventLoopUtilization();
    saturated = elu.utilization >= saturatedElu;
  }, periodMs);
  t.unref();
  return {
    ownDelayMs: () => (saturated ? Number.POSITIVE_INFINITY : lag),
    stop() {
      clearInterval(t);
      h.disable();
    },
  };
}
