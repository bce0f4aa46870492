import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { HostBackoff } from '../../src/core/host-backoff.js';

const setup = (random = () => 0) => {
  const clock = new FakeClock(0);
  return { clock, backoff: new HostBackoff({ maxPauseMs: 300_000 }, clock, random) };
};

describe('HostBackoff', () => {
  it('pauses 60 s without Retry-After, doubling up to the cap', () => {
    const { clock, backoff } = setup();
    expect(backoff.hostPausedUntil('h')).toBeUndefined();
    const pauses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const until = backoff.onThrottle('h');
      pauses.push(until - clock.now());
      clock.advance(until - clock.now());
    }
    expect(pauses).toEqual([60_000, 120_000, 240_000, 300_000, 300_000]);
  });

  it('obeys Retry-After up to the cap and never shortens a pause', () => {
    const { clock, backoff } = setup();
    expect(backoff.onThrottle('h', 5000)).toBe(5000);
    expect(backoff.hostPausedUntil('h')).toBe(5000);
    expect(backoff.onThrottle('h', 1000)).toBe(5000);
    expect(backoff.onThrottle('h', 10_000_000)).toBe(300_000);
    clock.advance(300_000);
    expect(backoff.hostPausedUntil('h')).toBeUndefined();
  });

  it('adds up to 10% jitter', () => {
    const { backoff } = setup(() => 0.5);
    expect(backoff.onThrottle('h')).toBe(63_000);
  });

  it('forgives after 30 quiet minutes', () => {
    const { clock, backoff } = setup();
    backoff.onThrottle('h');
    backoff.onThrottle('h');
    expect(backoff.strikes('h')).toBe(2);
    clock.advance(30 * 60_000);
    expect(backoff.strikes('h')).toBe(0);
    expect(backoff.onThrottle('h') - clock.now()).toBe(60_000);
  });

  it('forgives after a streak of successes', () => {
    const { clock, backoff } = setup();
    backoff.onThrottle('h');
    clock.advance(60_000);
    for (let i = 0; i < 49; i++) backoff.onSuccess('h');
    expect(backoff.strikes('h')).toBe(1);
    backoff.onSuccess('h');
    expect(backoff.strikes('h')).toBe(0);
    expect(backoff.size).toBe(0);
  });

  it('keeps a bounded map, forgetting unpaused hosts first', () => {
    const clock = new FakeClock(0);
    const backoff = new HostBackoff({ maxHosts: 2, initialPauseMs: 10, maxPauseMs: 100_000 }, clock, () => 0);
    backoff.onThrottle('paused', 100_000);
    backoff.onThrottle('a');
    clock.advance(20);
    backoff.onThrottle('b');
    expect(backoff.size).toBe(2);
    expect(backoff.hostPausedUntil('paused')).toBe(100_000);
    expect(backoff.strikes('a')).toBe(0);
  });

  it('validates options', () => {
    expect(() => new HostBackoff({ jitter: 2 }, new FakeClock(), () => 0)).toThrow(/`jitter`.*got 2/);
    expect(() => new HostBackoff({ initialPauseMs: 10, maxPauseMs: 5 }, new FakeClock(), () => 0)).toThrow(
      /initialPauseMs/,
    );
  });
});
