/**
 * An AIMD limit started from a hint (what the other daemons of a shared frontier found for the
 * host, core/limit/limit-hints.ts), on a fake clock: the baseline is still measured at the
 * initial limit, the start is in force from the probe's end, and slow start and AIMD go on
 * from there.
 */
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { AimdLimit, type AimdOptions } from '../../src/core/limit/aimd.js';
import { ConcurrencyLimiter } from '../../src/core/limiter.js';
import { runKneeSim } from '../helpers/knee-sim.js';

/** One window of `n` samples, 34 ms apart. */
function window(limit: AimdLimit, clock: FakeClock, rttMs: number, inflight: number, n = 4) {
  for (let i = 0; i < n; i++) {
    clock.advance(34);
    limit.onSample({ rttMs, inflight, dropped: false, startedAt: clock.monotonic() });
  }
}

const SMALL: AimdOptions = { initialLimit: 8, maxLimit: 256, windowMs: 100, minWindowSamples: 4 };

describe('AimdLimit started from a hint', () => {
  it('probes at initialLimit, then runs at the hint; the baseline is the probe’s', () => {
    const clock = new FakeClock();
    const limit = new AimdLimit(SMALL, clock, 128);
    const changes: [number, string | undefined][] = [];
    limit.onChange((l, reason) => changes.push([l, reason]));
    expect(limit.stats()).toMatchObject({ probing: true, limit: 8 });
    window(limit, clock, 50, 8);
    expect(limit.stats()).toMatchObject({ probing: false, limit: 128, baselineMs: 50 });
    expect(changes).toEqual([[128, 'probe']]);
    // Slow start goes on from the hint: under target, it doubles.
    window(limit, clock, 52, 128);
    expect(limit.limit).toBe(256);
    // A window at twice the baseline ends slow start at once (at most half: the hint).
    window(limit, clock, 120, 256);
    expect(limit.stats()).toMatchObject({ limit: 128, baselineMs: 50 });
  });

  it('the first probe’s doubling is not added to a hint', () => {
    const clock = new FakeClock();
    const limit = new AimdLimit(SMALL, clock, 16);
    window(limit, clock, 50, 8);
    expect(limit.limit).toBe(16);
    // Without a hint, the first probe was the first slow-start window: 8 → 16.
    const plain = new AimdLimit(SMALL, clock);
    window(plain, clock, 50, 8);
    expect(plain.limit).toBe(16);
  });

  it('a hint is clamped to [initialLimit, maxLimit]', () => {
    const clock = new FakeClock();
    const low = new AimdLimit(SMALL, clock, 3);
    window(low, clock, 50, 8);
    expect(low.limit).toBe(16); // as without a hint: the probe doubled 8
    const high = new AimdLimit(SMALL, clock, 1000);
    window(high, clock, 50, 8);
    expect(high.limit).toBe(256);
    expect(new AimdLimit(SMALL, clock, 12.7).limit).toBe(8); // probing
  });

  it('an absolute target needs no probe: the hint is in force at once', () => {
    const clock = new FakeClock();
    const limit = new AimdLimit({ ...SMALL, target: { kind: 'absolute', latencyMs: 100 } }, clock, 64);
    expect(limit.limit).toBe(64);
    window(limit, clock, 50, 64);
    expect(limit.limit).toBe(128);
  });
});

describe('AimdLimit started from a hint, on a server with a capacity knee', () => {
  const K = 32;
  const run = (start: number | undefined) => {
    const clock = new FakeClock();
    const limit = new AimdLimit({}, clock, start);
    const limiter = new ConcurrencyLimiter(limit, clock);
    const result = runKneeSim({ clock, limiter, knee: K, baseMs: 100, durationMs: 60_000, jitter: 0.2 });
    return { result, limit };
  };

  it('a hint far above the knee (4K): the baseline is the unloaded latency, the limit comes down into [0.7K, 1.3K]', () => {
    const { result, limit } = run(4 * K);
    // Measured at the initial limit (8, under the knee): ~100 ms. Measured at the hint it would
    // be ~400 ms, its target ~460 ms, and the limit would stay at 4K.
    expect(limit.stats().baselineMs).toBeGreaterThan(80);
    expect(limit.stats().baselineMs).toBeLessThan(120);
    expect(result.trace[1]).toMatchObject({ limit: 4 * K, reason: 'probe' });
    const w = result.window(10_000);
    expect(w.min).toBeGreaterThanOrEqual(0.7 * K);
    expect(w.max).toBeLessThanOrEqual(1.3 * K);
    // One slow-start window at the hint and the cuts after it: never above the hint.
    expect(Math.max(...result.trace.map((t) => t.limit))).toBeLessThanOrEqual(4 * K);
  });

  it('a hint at the knee is there at once; one under it grows into the band as slow start does', () => {
    for (const start of [K, K / 2]) {
      const { result } = run(start);
      expect(result.trace[1]).toMatchObject({ limit: start, reason: 'probe' });
      const w = result.window(10_000);
      expect(w.min).toBeGreaterThanOrEqual(0.7 * K);
      expect(w.max).toBeLessThanOrEqual(1.3 * K);
    }
  });

  it('serves as much as a limit started at initialLimit, reaching the knee sooner', () => {
    const hinted = run(K).result;
    const plain = run(undefined).result;
    const firstAtKnee = (r: typeof hinted) => r.trace.find((t) => t.limit >= 0.7 * K)!.atMs;
    expect(firstAtKnee(hinted)).toBeLessThan(firstAtKnee(plain));
    expect(hinted.completed).toBeGreaterThanOrEqual(0.97 * plain.completed);
  });
});
