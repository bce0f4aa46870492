import { describe, expect, it } from 'vitest';
import { formatProgress, type ProgressSnapshot } from '../../src/observe/progress.js';
import { pickHosts, RateSampler } from '../../src/observe/status-data.js';

const base: ProgressSnapshot = {
  done: 12345,
  pagesPerSec: 87.26,
  pending: 4321,
  delayed: 0,
  inflight: 8,
  limit: 256,
  failed: 3,
  retried: 14,
  elapsedSeconds: 83.9,
  state: 'running',
};

describe('formatProgress', () => {
  it('shows done, rate, queue, in flight, failures and elapsed time on one line', () => {
    expect(formatProgress(base)).toBe(
      'crawld 1:23 | 12,345 done | 87.3 pages/s | queue 4,321 | in flight 8/256 | 3 failed | 14 retried',
    );
  });

  it('shows delayed tasks, a missing rate and a state other than running', () => {
    const line = formatProgress({ ...base, pagesPerSec: null, delayed: 20, state: 'draining' });
    expect(line).toContain('- pages/s');
    expect(line).toContain('queue 4,321 (20 delayed)');
    expect(line.endsWith(' | draining')).toBe(true);
  });

  it('formats hours as h:mm:ss', () => {
    expect(formatProgress({ ...base, elapsedSeconds: 3 * 3600 + 5 * 60 + 7 })).toMatch(/^crawld 3:05:07 \|/);
  });

  it('never reaches the last column, so \\r can redraw it without wrapping', () => {
    const line = formatProgress(base, 40);
    expect(line.length).toBe(39);
    expect(line.endsWith('~')).toBe(true);
    expect(formatProgress(base, 200).length).toBeLessThan(199);
  });

  it('contains no control characters (the caller adds \\r and the erase sequence)', () => {
    expect(formatProgress(base)).not.toMatch(/[\x00-\x1f]/);
  });
});

describe('RateSampler', () => {
  it('has no rate before two samples, then rates over the window', () => {
    const s = new RateSampler(10_000);
    expect(s.record({ at: 0, ok: 0, failed: 0, retried: 0 }).pagesPerSec).toBeNull();
    const r = s.record({ at: 2000, ok: 100, failed: 25, retried: 10 });
    expect(r.pagesPerSec).toBe(50);
    expect(r.failuresPerSec).toBe(12.5);
    expect(r.retriesPerSec).toBe(5);
    expect(r.failureRatio).toBe(35 / 135); // retries count as failed attempts
    expect(r.windowSeconds).toBe(2);
  });

  it('forgets samples older than the window, so a slowdown shows within it', () => {
    const s = new RateSampler(10_000);
    let ok = 0;
    for (let t = 0; t <= 20_000; t += 1000) {
      s.record({ at: t, ok, failed: 0, retried: 0 });
      ok += t < 15_000 ? 100 : 10; // 100/s, then 10/s from t=15 s
    }
    const r = s.record({ at: 21_000, ok, failed: 0, retried: 0 });
    expect(r.windowSeconds).toBe(10);
    expect(r.pagesPerSec).toBeCloseTo((6 * 10 + 4 * 100) / 10);
    expect(r.failureRatio).toBe(0);
  });

  it('reports no failure ratio when nothing finished in the window', () => {
    const s = new RateSampler();
    s.record({ at: 0, ok: 5, failed: 1, retried: 0 });
    expect(s.record({ at: 1000, ok: 5, failed: 1, retried: 0 }).failureRatio).toBeNull();
  });
});

describe('pickHosts', () => {
  it('lists troubled hosts first, then the busiest, and caps the list', () => {
    const now = 1000;
    const { total, open, halfOpen, paused, rows } = pickHosts(
      [
        { host: 'b.example', limit: 8, inflight: 2, breaker: 'closed' },
        { host: 'a.example', limit: 8, inflight: 2, breaker: 'closed' },
        { host: 'busy.example', limit: 16, inflight: 9, breaker: 'closed' },
        { host: 'paused.example', limit: 4, inflight: 0, breaker: 'closed', pausedUntil: 5000 },
        { host: 'was-paused.example', limit: 4, inflight: 0, breaker: 'closed', pausedUntil: 500 },
        { host: 'half.example', limit: 1, inflight: 1, breaker: 'halfOpen' },
        { host: 'open.example', limit: 1, inflight: 0, breaker: 'open' },
      ],
      now,
      6,
    );
    expect({ total, open, halfOpen, paused }).toEqual({ total: 7, open: 1, halfOpen: 1, paused: 1 });
    expect(rows.map((r) => r.host)).toEqual([
      'open.example',
      'half.example',
      'paused.example',
      'busy.example',
      'a.example',
      'b.example',
    ]);
    expect(rows[2]!.pausedUntil).toBe(5000);
    expect(rows.find((r) => r.host === 'a.example')!.pausedUntil).toBeNull();
  });
});
