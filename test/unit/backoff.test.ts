import { describe, expect, it } from 'vitest';
import { backoffDelayMs } from '../../src/core/backoff.js';
import { FakeClock } from '../../src/core/clock.js';
import { parseRetryAfter } from '../../src/core/retry-after.js';

describe('backoffDelayMs', () => {
  const one = () => 0.999999;
  it('full jitter stays in [0, ceiling) and the ceiling doubles up to the cap', () => {
    expect(backoffDelayMs(1, {}, () => 0)).toBe(0);
    expect(backoffDelayMs(1, {}, one)).toBe(999);
    expect(backoffDelayMs(3, {}, one)).toBe(3999);
    expect(backoffDelayMs(30, {}, one)).toBe(299_999);
    expect(backoffDelayMs(10_000, {}, one)).toBe(299_999);
    expect(backoffDelayMs(2, {}, () => 0.5)).toBe(1000);
  });

  it('equal and no jitter', () => {
    expect(backoffDelayMs(2, { jitter: 'equal' }, () => 0)).toBe(1000);
    expect(backoffDelayMs(2, { jitter: 'none', baseMs: 100, factor: 3 }, () => 0)).toBe(300);
    expect(backoffDelayMs(20, { jitter: 'none', maxMs: 5000 }, () => 0)).toBe(5000);
  });

  it('validates', () => {
    expect(() => backoffDelayMs(0, {}, one)).toThrow(/`attempt`.*got 0/);
    expect(() => backoffDelayMs(1, { factor: 0.5 }, one)).toThrow(/`factor`/);
    expect(() => backoffDelayMs(1, { maxMs: 10 }, one)).toThrow(/`maxMs`/);
  });
});

describe('parseRetryAfter', () => {
  const clock = new FakeClock(Date.UTC(2025, 0, 1, 0, 0, 0));
  it('parses delta-seconds', () => {
    expect(parseRetryAfter('120', clock)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', clock)).toBe(0);
  });

  it('parses the three HTTP-date formats relative to clock.now()', () => {
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:01:30 GMT', clock)).toBe(90_000);
    expect(parseRetryAfter('Wednesday, 01-Jan-25 00:01:30 GMT', clock)).toBe(90_000);
    expect(parseRetryAfter('Wed Jan  1 00:01:30 2025', clock)).toBe(90_000);
  });

  it('a past date means now', () => {
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:00:00 GMT', clock)).toBe(0);
  });

  it('garbage and negative values are undefined', () => {
    for (const v of [undefined, '', '-5', '1.5', 'soon', '1 2', 'Wed, 31 Feb 2025 00:00:00 GMT', '12abc']) {
      expect(parseRetryAfter(v, clock)).toBeUndefined();
    }
  });

  it('caps long delays', () => {
    expect(parseRetryAfter('999999', clock)).toBe(3_600_000);
    expect(parseRetryAfter('600', clock, { maxMs: 60_000 })).toBe(60_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:00 GMT', clock)).toBe(3_600_000);
    expect(() => parseRetryAfter('1', clock, { maxMs: -1 })).toThrow(/`maxMs`/);
  });
});
