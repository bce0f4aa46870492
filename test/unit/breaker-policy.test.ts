import { describe, expect, it } from 'vitest';
import { BreakerPolicy } from '../../src/core/breaker-policy.js';
import { FakeClock } from '../../src/core/clock.js';
import { PolicyHostBreakers } from '../../src/core/host-breakers.js';

const setup = (options = {}) => {
  const clock = new FakeClock();
  const breaker = new BreakerPolicy(options, clock);
  const transitions: string[] = [];
  breaker.onTransition(({ from, to }) => transitions.push(`${from}->${to}`));
  return { clock, breaker, transitions };
};

describe('BreakerPolicy', () => {
  it('opens at the error threshold only once the volume threshold is reached', () => {
    const { breaker, transitions } = setup({ consecutiveFailures: 0 });
    for (let i = 0; i < 9; i++) breaker.onFailure();
    expect(breaker.state).toBe('closed'); // 100% failures, but only 9 calls
    breaker.onFailure();
    expect(breaker.state).toBe('open');
    expect(breaker.canPass()).toBe(false);
    expect(transitions).toEqual(['closed->open']);
  });

  it('stays closed under the threshold', () => {
    const { breaker } = setup();
    for (let i = 0; i < 20; i++) {
      breaker.onSuccess();
      breaker.onSuccess();
      breaker.onFailure();
    }
    expect(breaker.state).toBe('closed');
  });

  it('goes half-open after the reset timeout and closes on a probe success', () => {
    const { clock, breaker, transitions } = setup({ volumeThreshold: 1, resetTimeoutMs: 30_000 });
    breaker.onFailure();
    clock.advance(29_999);
    expect(breaker.canPass()).toBe(false);
    clock.advance(1);
    expect(breaker.canPass()).toBe(true);
    expect(breaker.canPass()).toBe(false); // one probe at a time
    breaker.onSuccess();
    expect(breaker.state).toBe('closed');
    expect(transitions).toEqual(['closed->open', 'open->halfOpen', 'halfOpen->closed']);
    // The window is emptied on close, so failures from before the outage cannot reopen it.
    expect(breaker.window).toEqual({ calls: 0, failures: 0 });
  });

  it('reopens on a probe failure, open twice as long', () => {
    const { clock, breaker } = setup({ volumeThreshold: 1, resetTimeoutMs: 1000 });
    breaker.onFailure();
    clock.advance(1000);
    expect(breaker.canPass()).toBe(true);
    breaker.onFailure();
    expect(breaker.state).toBe('open');
    expect(breaker.retryInMs).toBe(2000);
    clock.advance(1999);
    expect(breaker.state).toBe('open');
    clock.advance(1);
    expect(breaker.state).toBe('halfOpen');
  });

  it('counts an open time from when the failure happened (a request given up as hung failed when it was sent)', () => {
    const { clock, breaker } = setup({ consecutiveFailures: 2, resetTimeoutMs: 1000 });
    breaker.onFailure({ agoMs: 250 });
    breaker.onFailure({ agoMs: 250 });
    expect(breaker.state).toBe('open');
    expect(breaker.retryInMs).toBe(750);
    clock.advance(750);
    expect(breaker.canPass()).toBe(true);
    // The probe hung for 2.5 s, longer than the next open time (2 s): probed again at once.
    clock.advance(2500);
    breaker.onFailure({ agoMs: 2500 });
    expect(breaker.state).toBe('halfOpen');
    expect(breaker.trips).toBe(2);
  });

  it('counts a tail failure (the host answered others meanwhile) for the rate, never for a run', () => {
    const { breaker } = setup({ consecutiveFailures: 5, volumeThreshold: 20 });
    for (let i = 0; i < 9; i++) breaker.onFailure({ tail: true });
    expect(breaker.state).toBe('closed');
    // Nor does it break a run: four failures, a tail one, a fifth trip it.
    for (let i = 0; i < 4; i++) breaker.onSuccess();
    expect(breaker.window).toEqual({ calls: 13, failures: 9 });
    for (let i = 0; i < 4; i++) breaker.onFailure();
    breaker.onFailure({ tail: true });
    expect(breaker.state).toBe('closed');
    breaker.onFailure();
    expect(breaker.state).toBe('open');
  });

  it('admits halfOpenMaxProbes probes; ignore frees one; all must succeed', () => {
    const { clock, breaker } = setup({ volumeThreshold: 1, halfOpenMaxProbes: 2, resetTimeoutMs: 10 });
    breaker.onFailure();
    clock.advance(10);
    expect([breaker.canPass(), breaker.canPass(), breaker.canPass()]).toEqual([true, true, false]);
    breaker.onIgnore();
    expect(breaker.canPass()).toBe(true);
    breaker.onSuccess();
    expect(breaker.state).toBe('halfOpen');
    breaker.onSuccess();
    expect(breaker.state).toBe('closed');
  });

  it('old buckets roll out of the window', () => {
    const { clock, breaker } = setup({ consecutiveFailures: 0 });
    for (let i = 0; i < 9; i++) breaker.onFailure();
    clock.advance(5_000);
    expect(breaker.window).toEqual({ calls: 9, failures: 9 });
    clock.advance(5_000);
    expect(breaker.window).toEqual({ calls: 0, failures: 0 });
    breaker.onFailure();
    expect(breaker.state).toBe('closed');
  });

  it('ignores outcomes reported while open', () => {
    const { clock, breaker } = setup({ volumeThreshold: 1, resetTimeoutMs: 100 });
    breaker.onFailure();
    breaker.onSuccess();
    breaker.onFailure();
    clock.advance(100);
    expect(breaker.state).toBe('halfOpen');
  });

  it('trips after consecutiveFailures in a row, however healthy the window was', () => {
    const { breaker, transitions } = setup({ consecutiveFailures: 5 });
    // The 50% rule would need ~100 failures after these; the run rule needs 5.
    for (let i = 0; i < 100; i++) breaker.onSuccess();
    for (let i = 0; i < 4; i++) breaker.onFailure();
    breaker.onSuccess(); // breaks the run
    for (let i = 0; i < 4; i++) breaker.onFailure();
    expect(breaker.state).toBe('closed');
    breaker.onFailure();
    expect(breaker.state).toBe('open');
    expect(transitions).toEqual(['closed->open']);
  });

  it('doubles the open time per consecutive trip up to the cap; a probe success starts it short again', () => {
    const { clock, breaker } = setup({ resetTimeoutMs: 1000, maxResetTimeoutMs: 5000 });
    for (let i = 0; i < 5; i++) breaker.onFailure();
    const openTimes: number[] = [];
    for (let trip = 0; trip < 5; trip++) {
      openTimes.push(breaker.retryInMs);
      clock.advance(breaker.retryInMs - 1);
      expect(breaker.canPass()).toBe(false);
      clock.advance(1);
      expect(breaker.canPass()).toBe(true); // the probe
      breaker.onFailure();
    }
    expect(openTimes).toEqual([1000, 2000, 4000, 5000, 5000]);
    clock.advance(5000);
    expect(breaker.canPass()).toBe(true);
    breaker.onSuccess();
    expect(breaker.state).toBe('closed');
    expect(breaker.trips).toBe(0);
    for (let i = 0; i < 5; i++) breaker.onFailure();
    expect(breaker.retryInMs).toBe(1000);
  });

  it('a host down for an hour costs ~60 probes with the defaults', () => {
    const { clock, breaker } = setup();
    for (let i = 0; i < 5; i++) breaker.onFailure();
    let probes = 0;
    for (let t = 0; t < 3_600_000; t += 100) {
      clock.advance(100);
      if (breaker.canPass()) {
        probes++;
        breaker.onFailure();
      }
    }
    // 1+2+4+...+32 s, then one per 60 s: 6 + 59.
    expect(probes).toBeGreaterThanOrEqual(60);
    expect(probes).toBeLessThanOrEqual(66);
  });

  it('validates options', () => {
    expect(() => new BreakerPolicy({ errorThresholdPercentage: 150 }, new FakeClock())).toThrow(
      /`errorThresholdPercentage`.*got 150/,
    );
    expect(() => new BreakerPolicy({ halfOpenMaxProbes: 0 }, new FakeClock())).toThrow(/halfOpenMaxProbes/);
    expect(
      () => new BreakerPolicy({ resetTimeoutMs: 2000, maxResetTimeoutMs: 1000 }, new FakeClock()),
    ).toThrow(/maxResetTimeoutMs/);
  });
});

describe('PolicyHostBreakers', () => {
  it('keeps one breaker per host and reports transitions with the host', () => {
    const clock = new FakeClock();
    const registry = new PolicyHostBreakers({ volumeThreshold: 1 }, clock);
    const seen: string[] = [];
    registry.onTransition((t) => seen.push(`${t.host}:${t.from}->${t.to}`));
    registry.get('a').onFailure();
    expect(registry.get('a').canPass()).toBe(false);
    expect(registry.get('b').canPass()).toBe(true);
    expect(seen).toEqual(['a:closed->open']);
  });

  it('forgets closed breakers first past maxHosts', () => {
    const registry = new PolicyHostBreakers({ volumeThreshold: 1, maxHosts: 2 }, new FakeClock());
    registry.get('open').onFailure();
    registry.get('x');
    registry.get('y');
    expect(registry.size).toBe(2);
    expect(registry.get('open').state).toBe('open');
  });
});
