import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { GROW, nextRecrawlInterval, SHRINK } from '../../src/core/recrawl-interval.js';

const policy = { startMs: 3_600_000, minMs: 900_000, maxMs: 86_400_000, adaptive: true };

describe('nextRecrawlInterval', () => {
  it('starts every page at the start interval', () => {
    expect(nextRecrawlInterval(policy, undefined, undefined)).toBe(3_600_000);
  });

  it('grows on unchanged, shrinks on changed, within [min, max]', () => {
    expect(nextRecrawlInterval(policy, 3_600_000, false)).toBe(3_600_000 * GROW);
    expect(nextRecrawlInterval(policy, 3_600_000, true)).toBe(3_600_000 * SHRINK);
    expect(nextRecrawlInterval(policy, 1_000_000, true)).toBe(900_000);
    expect(nextRecrawlInterval(policy, 80_000_000, false)).toBe(86_400_000);
  });

  it('converges on min for a page that always changes and max for one that never does', () => {
    let hot = nextRecrawlInterval(policy, undefined, undefined);
    let cold = hot;
    for (let i = 0; i < 20; i++) {
      hot = nextRecrawlInterval(policy, hot, true);
      cold = nextRecrawlInterval(policy, cold, false);
    }
    expect(hot).toBe(policy.minMs);
    expect(cold).toBe(policy.maxMs);
  });

  it('keeps the start interval when not adaptive', () => {
    expect(nextRecrawlInterval({ ...policy, adaptive: false }, 900_000, true)).toBe(3_600_000);
  });
});

describe('recrawl config', () => {
  const job = (extra: Record<string, unknown>) => ({
    jobs: [{ id: 'a', seeds: ['http://x.example/'], ...extra }],
  });
  it('names the field when the bounds or the starting interval do not fit', () => {
    const recrawl = { minIntervalMs: 5, maxIntervalMs: 20 };
    expect(() =>
      validateConfig(job({ recrawlIntervalMs: 10, recrawl: { minIntervalMs: 30, maxIntervalMs: 20 } })),
    ).toThrow(/jobs\[0\]\.recrawl\.minIntervalMs/);
    expect(() => validateConfig(job({ recrawl }))).toThrow(/jobs\[0\]\.recrawlIntervalMs/);
    expect(() => validateConfig(job({ recrawlIntervalMs: 1, recrawl }))).toThrow(
      /jobs\[0\]\.recrawlIntervalMs/,
    );
    expect(validateConfig(job({ recrawlIntervalMs: 10, recrawl })).jobs[0]?.recrawl).toEqual({
      ...recrawl,
      adaptive: true,
    });
  });
});
