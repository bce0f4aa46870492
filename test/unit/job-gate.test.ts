import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { JobGate } from '../../src/core/job-gate.js';

describe('JobGate', () => {
  it('holds a job to its concurrency per host, and leaves other jobs and hosts alone', () => {
    const gate = new JobGate(new Map([['api', { maxConcurrency: 2 }]]), new FakeClock());
    expect(gate.active).toBe(true);
    gate.acquire('api', 'h1');
    gate.acquire('api', 'h1');
    expect(gate.waitMs('api', 'h1')).toBe(Number.POSITIVE_INFINITY);
    expect(gate.waitMs('api', 'h2')).toBe(0);
    expect(gate.waitMs('other', 'h1')).toBe(0);
    gate.release('api', 'h1');
    expect(gate.waitMs('api', 'h1')).toBe(0);
  });

  it('meters a job by its token bucket, with the exact wait', () => {
    const clock = new FakeClock();
    const gate = new JobGate(new Map([['api', { ratePerSec: 4, burst: 2 }]]), clock);
    for (let i = 0; i < 2; i++) {
      expect(gate.waitMs('api', 'h')).toBe(0);
      gate.acquire('api', 'h');
      gate.release('api', 'h');
    }
    expect(gate.waitMs('api', 'h')).toBe(250);
    clock.advance(249);
    expect(gate.waitMs('api', 'h')).toBe(1);
    clock.advance(1);
    expect(gate.waitMs('api', 'h')).toBe(0);
  });

  it('is inactive without limits, takes new limits on update, and refuses bad ones', () => {
    const clock = new FakeClock();
    const gate = new JobGate(new Map(), clock);
    expect(gate.active).toBe(false);
    gate.acquire('api', 'h');
    expect(gate.waitMs('api', 'h')).toBe(0);
    gate.update(new Map([['api', { maxConcurrency: 1 }]]));
    gate.acquire('api', 'h');
    expect(gate.waitMs('api', 'h')).toBe(Number.POSITIVE_INFINITY);
    expect(() => new JobGate(new Map([['x', { maxConcurrency: 0 }]]), clock)).toThrow(InvalidArgumentError);
    expect(() => new JobGate(new Map([['x', { ratePerSec: -1 }]]), clock)).toThrow(/x\.ratePerSec/);
  });
});
