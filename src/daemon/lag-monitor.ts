import { monitorEventLoopDelay } from 'node:perf_hooks';

/**
 * Event-loop lag over the last second, for the limiter's lag discount. The histogram is
 * reset every second so the figure describes now, not the process's whole life.
 */
export function startLagMonitor(periodMs = 1000): { lagMs(): number; stop(): void } {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  let last = 0;
  const t = setInterval(() => {
    // mean includes the 10 ms sampling resolution itself; what exceeds it is lag.
    last = Number.isFinite(h.mean) ? Math.max(0, h.mean / 1e6 - 10) : 0;
    h.reset();
  }, periodMs);
  t.unref();
  return {
    lagMs: () => last,
    stop() {
      clearInterval(t);
      h.disable();
    },
  };
}
