import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { FixedLimit } from '../../src/core/limit/fixed.js';
import { HostLimiters } from '../../src/core/limiter.js';
import { type EventLoopMonitor, startEventLoopMonitor } from '../../src/daemon/event-loop-monitor.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The monitor on this process's real event loop (perf_hooks, real time) and real HostLimiters:
 * a loop kept busy gets a lower global limit, a loop with room gets it back.
 */
let governor: EventLoopMonitor | undefined;
afterEach(() => governor?.stop());

/** Requests in flight up to the limiters' ceiling (each host limit is wide). */
function fullLimiters(ceiling: number) {
  const limiters = new HostLimiters(
    { globalMaxInflight: ceiling, createLimit: () => new FixedLimit(10_000) },
    systemClock,
  );
  const fill = () => {
    while (limiters.tryAcquire('a.test')) {}
  };
  return { limiters, fill };
}

/** Keeps the event loop busy for ms: 80 ms of work, then one turn, over and over. */
async function saturate(ms: number, fill: () => void): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const until = performance.now() + 80;
    while (performance.now() < until) {}
    fill();
    await new Promise((r) => setImmediate(r));
  }
}

describe('event loop monitor', () => {
  it('lowers the global limit while the event loop is saturated and raises it when the loop has room', async () => {
    const { limiters, fill } = fullLimiters(512);
    governor = startEventLoopMonitor({
      limit: () => ({ maxLimit: 512, initialLimit: 256, targetLagMs: 40 }),
      target: () => limiters,
      periodMs: 100,
    });
    // Applied at start, before the first window.
    expect(limiters.globalLimit).toBe(256);
    fill();
    await saturate(1200, fill);
    const cut = limiters.globalLimit;
    expect(cut).toBeLessThan(256);
    expect(cut).toBeGreaterThanOrEqual(32);
    // An idle loop, with requests at the limit: it grows back.
    await waitFor(
      () => {
        fill();
        return limiters.globalLimit > cut;
      },
      { what: 'the global limit to grow back on an idle loop', every: 100 },
    );
  });

  it('keeps the ceiling when the global limit is not adaptive, however busy the loop', async () => {
    const { limiters, fill } = fullLimiters(300);
    limiters.setGlobalLimit(50);
    governor = startEventLoopMonitor({ limit: () => undefined, target: () => limiters, periodMs: 100 });
    expect(limiters.globalLimit).toBe(300);
    await saturate(600, fill);
    expect(limiters.globalLimit).toBe(300);
  });

  it('reads its own delay as infinite while the loop is saturated, finite once the loop has room', async () => {
    const { limiters, fill } = fullLimiters(300);
    governor = startEventLoopMonitor({
      limit: () => undefined,
      target: () => limiters,
      periodMs: 100,
      lagPeriodMs: 200,
    });
    expect(governor.ownDelayMs()).toBe(0);
    await saturate(800, fill);
    expect(governor.ownDelayMs()).toBe(Number.POSITIVE_INFINITY);
    await waitFor(() => Number.isFinite(governor?.ownDelayMs()), {
      what: 'the delay reading to come back on an idle loop',
      every: 100,
    });
  });
});
