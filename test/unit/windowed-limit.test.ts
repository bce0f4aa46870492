import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { LimitSample } from '../../src/core/limit/limit.js';
import {
  type LimitWindow,
  type WindowedAlgorithm,
  WindowedLimit,
  type WindowPhase,
} from '../../src/core/limit/windowed.js';

/** A delegate that records what the window hands it. */
function recorder(phase: WindowPhase = 'steady') {
  const windows: LimitWindow[] = [];
  let drops = 0;
  const delegate: WindowedAlgorithm & { phaseNow: WindowPhase } = {
    phaseNow: phase,
    limit: 10,
    onChange: () => () => {},
    phase: () => delegate.phaseNow,
    counts: (s) => s.inflight <= 10,
    usable: (s) => (s.lagMs ?? 0) < 100,
    onDrop: () => {
      drops++;
    },
    onWindow: (w) => windows.push(w),
  };
  return { delegate, windows, drops: () => drops };
}

const OPTIONS = { windowMs: 1000, minWindowSamples: 8, slowStartWindowMs: 100, percentile: 0.5 };
const ok = (rttMs: number, extra: Partial<LimitSample> = {}): LimitSample => ({
  rttMs,
  inflight: 5,
  dropped: false,
  ...extra,
});

describe('WindowedLimit', () => {
  it('closes a steady window on both its sample count and its length', () => {
    const clock = new FakeClock();
    const r = recorder();
    const w = new WindowedLimit(r.delegate, OPTIONS, clock);
    for (let i = 0; i < 20; i++) w.onSample(ok(50));
    expect(r.windows).toEqual([]); // enough samples, too short
    clock.advance(1000);
    w.onSample(ok(50));
    expect(r.windows).toHaveLength(1);
    expect(r.windows[0]).toMatchObject({ latencyMs: 50, maxInflight: 5, cut: false });
  });

  it('closes a probe window on its counted samples alone, however short', () => {
    const clock = new FakeClock();
    const r = recorder('probe');
    const w = new WindowedLimit(r.delegate, OPTIONS, clock);
    // Samples the delegate does not count (above the pinned concurrency) do not close it.
    for (let i = 0; i < 20; i++) w.onSample(ok(50, { inflight: 30 }));
    expect(r.windows).toEqual([]);
    for (let i = 0; i < 8; i++) w.onSample(ok(50));
    expect(r.windows).toHaveLength(1);
    expect(r.windows[0]!.maxInflight).toBe(30);
  });

  it('closes a slow-start window on usable samples after slowStartWindowMs, or after windowMs on any', () => {
    const clock = new FakeClock();
    const r = recorder('slowStart');
    const w = new WindowedLimit(r.delegate, OPTIONS, clock);
    w.onSample(ok(50));
    clock.advance(100);
    for (let i = 0; i < 10; i++) w.onSample(ok(50, { lagMs: 500 })); // counted, not usable
    expect(r.windows).toEqual([]);
    for (let i = 0; i < 7; i++) w.onSample(ok(50));
    expect(r.windows).toHaveLength(1); // the 8th usable sample
    for (let i = 0; i < 10; i++) w.onSample(ok(50, { lagMs: 500 }));
    clock.advance(1000);
    w.onSample(ok(50, { lagMs: 500 }));
    expect(r.windows).toHaveLength(2);
    expect(r.windows[1]!.latencyMs).toBeUndefined(); // no usable sample: no verdict
  });

  it('passes only the first drop of a window, and marks the window cut', () => {
    const clock = new FakeClock();
    const r = recorder();
    const w = new WindowedLimit(r.delegate, OPTIONS, clock);
    for (let i = 0; i < 5; i++) w.onSample({ rttMs: 0, inflight: 5, dropped: true });
    expect(r.drops()).toBe(1);
    for (let i = 0; i < 8; i++) w.onSample(ok(50));
    clock.advance(1000);
    w.onSample(ok(50));
    expect(r.windows[0]!.cut).toBe(true);
    w.onSample({ rttMs: 0, inflight: 5, dropped: true });
    expect(r.drops()).toBe(2); // a new window
  });

  it('nets latencies of the queue estimate, else the lag, and needs a quarter window to judge', () => {
    const clock = new FakeClock();
    const r = recorder();
    const w = new WindowedLimit(r.delegate, OPTIONS, clock);
    w.onSample(ok(60, { queuedMs: 10, lagMs: 5 }));
    w.onSample(ok(60, { lagMs: 20 }));
    for (let i = 0; i < 6; i++) w.onSample(ok(60, { lagMs: 500 }));
    clock.advance(1000);
    w.onSample(ok(60, { lagMs: 500 }));
    // 2 usable of 8 = a quarter: judged, nearest-rank median of [40, 50].
    expect(r.windows[0]!.latencyMs).toBe(40);
    for (let i = 0; i < 8; i++) w.onSample(ok(60, { lagMs: 500 }));
    w.onSample(ok(60));
    clock.advance(1000);
    w.onSample(ok(60, { lagMs: 500 }));
    expect(r.windows[1]!.latencyMs).toBeUndefined(); // 1 usable of 8
  });
});
