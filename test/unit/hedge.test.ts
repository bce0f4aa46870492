import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { HEDGE_BOUNDS, HedgePolicy } from '../../src/core/hedge.js';

const HOST = 'site.test';

describe('HedgePolicy', () => {
  it('hedges nothing when off, and nothing before a host has 20 times known', () => {
    const off = new HedgePolicy();
    for (let i = 0; i < 50; i++) off.sample(HOST, 50);
    expect(off.delayFor(HOST)).toBeUndefined();
    const on = new HedgePolicy({ enabled: true });
    for (let i = 0; i < 19; i++) on.sample(HOST, 50);
    expect(on.delayFor(HOST)).toBeUndefined();
    on.sample(HOST, 50);
    expect(on.delayFor(HOST)).toBe(75);
    expect(on.delayFor('other.test')).toBeUndefined();
  });

  it("waits delayRatio x the host's p95 of its last 64 times to headers", () => {
    const p = new HedgePolicy({ enabled: true, delayRatio: 2 });
    // One answer in 16 takes 1 s: four of the last 64, and the p95 (the fourth from the top) is one.
    for (let i = 0; i < 96; i++) p.sample(HOST, i % 16 === 15 ? 1000 : 50);
    expect(p.p95Of(HOST)).toBe(1000);
    // One in 48: one of the last 64, under the p95.
    const fast = new HedgePolicy({ enabled: true, delayRatio: 2 });
    for (let i = 0; i < 96; i++) fast.sample(HOST, i % 48 === 47 ? 1000 : 50 + (i % 10));
    expect(fast.p95Of(HOST)).toBe(59);
    expect(fast.delayFor(HOST)).toBe(118);
  });

  it('spends at most maxPercent of the requests on hedges, and saves no burst', () => {
    const p = new HedgePolicy({ enabled: true, maxPercent: 5 });
    for (let i = 0; i < 20; i++) p.sample(HOST, 50);
    let hedges = 0;
    for (let i = 0; i < 10_000; i++) {
      p.delayFor(HOST);
      if (p.take()) hedges++;
    }
    expect(hedges).toBeGreaterThanOrEqual(499);
    expect(hedges).toBeLessThanOrEqual(501);
    // A long quiet stretch (requests that needed no hedge) saves at most 10.
    for (let i = 0; i < 100_000; i++) p.delayFor(HOST);
    let burst = 0;
    while (p.take()) burst++;
    expect(burst).toBe(10);
  });

  it('refuses options out of their bounds, naming them', () => {
    for (const [option, bound] of Object.entries(HEDGE_BOUNDS)) {
      expect(() => new HedgePolicy({ [option]: (bound.min ?? 0) - 1 }), option).toThrow(InvalidArgumentError);
    }
    expect(() => new HedgePolicy({ maxPercent: 0 })).toThrow(/`maxPercent`/);
  });
});
