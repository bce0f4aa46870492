import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** The event-loop delay timer's resolution, ms; what a sample exceeds it by is lag. */
const RESOLUTION_MS = 10;

/** One window of the event loop, from the last take() to this one. */
export interface LoopSample {
  /** Utilisation, 0..1. */
  readonly elu: number;
  /** Mean delay of the loop's timer beyond its resolution, ms; undefined when it never ran. */
  readonly lagMs: number | undefined;
}

export interface LoopSampler {
  /** The window since the last take() (or since start), and a new window begins. */
  take(): LoopSample;
  stop(): void;
}

/** Event-loop utilisation and delay by window (perf_hooks), for the lag monitor and the loop governor. */
export function startLoopSampler(): LoopSampler {
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let last = performance.eventLoopUtilization();
  return {
    take() {
      const elu = performance.eventLoopUtilization(last).utilization;
      last = performance.eventLoopUtilization();
      const lagMs = delay.count === 0 ? undefined : Math.max(0, delay.mean / 1e6 - RESOLUTION_MS);
      delay.reset();
      return { elu, lagMs };
    },
    stop() {
      delay.disable();
    },
  };
}
