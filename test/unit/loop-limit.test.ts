import { describe, expect, it } from 'vitest';
import { LoopLimit, loopLimitDefaults } from '../../src/core/limit/loop-limit.js';

const saturated = (lagMs: number, reached = true) => ({ elu: 1, lagMs, reached });
const idle = (lagMs: number, reached = true) => ({ elu: 0.3, lagMs, reached });

describe('LoopLimit', () => {
  it('starts at initialLimit, within the floor and the ceiling', () => {
    expect(new LoopLimit({ maxLimit: 512 }).limit).toBe(loopLimitDefaults.initialLimit);
    expect(new LoopLimit({ maxLimit: 100 }).limit).toBe(100);
    expect(new LoopLimit({ maxLimit: 512, minLimit: 200, initialLimit: 64 }).limit).toBe(200);
    // A ceiling under the floor is a fixed limit.
    const fixed = new LoopLimit({ maxLimit: 8 });
    fixed.onWindow(saturated(500));
    expect(fixed.limit).toBe(8);
  });

  it('cuts in proportion to the lag of a saturated loop, at most by maxCutRatio, never below the floor', () => {
    const l = new LoopLimit({ maxLimit: 512, initialLimit: 400, targetLagMs: 20 });
    l.onWindow(saturated(25)); // target / lag = 0.8
    expect(l.limit).toBe(320);
    l.onWindow(saturated(400)); // 0.05, held at 0.5
    expect(l.limit).toBe(160);
    for (let i = 0; i < 10; i++) l.onWindow(saturated(400));
    expect(l.limit).toBe(loopLimitDefaults.minLimit);
  });

  it('does not cut for lag the loop had room for (not saturated)', () => {
    const l = new LoopLimit({ maxLimit: 512, initialLimit: 256 });
    l.onWindow(idle(300, false));
    l.onWindow({ elu: 0.9, lagMs: 300, reached: false });
    expect(l.limit).toBe(256);
  });

  it('grows while requests wait for it and the lag is under half the target, up to the ceiling', () => {
    const l = new LoopLimit({ maxLimit: 300, initialLimit: 100, targetLagMs: 20 });
    l.onWindow(idle(2, false)); // nothing waited for the limit
    expect(l.limit).toBe(100);
    l.onWindow(idle(2));
    expect(l.limit).toBe(125);
    l.onWindow(saturated(15)); // the dead band: between half the target and the target
    expect(l.limit).toBe(125);
    l.onWindow(saturated(5)); // saturated, little lag: room to grow
    expect(l.limit).toBe(157);
    for (let i = 0; i < 10; i++) l.onWindow(idle(0));
    expect(l.limit).toBe(300);
  });

  it('tells its listeners why the limit changed, and skips windows without figures', () => {
    const l = new LoopLimit({ maxLimit: 512, initialLimit: 100 });
    const seen: [number, string][] = [];
    l.onChange((limit, reason) => seen.push([limit, reason]));
    l.onWindow(saturated(Number.NaN));
    l.onWindow(saturated(40));
    l.onWindow(idle(0));
    expect(seen).toEqual([
      [50, 'loop_saturated'],
      [63, 'loop_room'],
    ]);
  });

  it('refuses bad options by name', () => {
    expect(() => new LoopLimit({ maxLimit: 0 })).toThrow(/maxLimit/);
    expect(() => new LoopLimit({ maxLimit: 10, targetLagMs: 0 })).toThrow(/targetLagMs/);
    expect(() => new LoopLimit({ maxLimit: 10, growthRatio: 1 })).toThrow(/growthRatio/);
    expect(() => new LoopLimit({ maxLimit: 10, maxCutRatio: 1 })).toThrow(/maxCutRatio/);
  });
});
