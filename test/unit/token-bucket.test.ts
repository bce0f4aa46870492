import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { hostMatcher, LocalRateLimiter } from '../../src/core/local-rate-limiter.js';
import { TokenBucket } from '../../src/core/token-bucket.js';

describe('TokenBucket', () => {
  it('starts full and allows a burst', () => {
    const bucket = new TokenBucket({ ratePerSec: 1, burst: 3 }, new FakeClock());
    expect([1, 2, 3].map(() => bucket.tryTake().ok)).toEqual([true, true, true]);
    expect(bucket.tryTake()).toEqual({ ok: false, waitMs: 1000 });
  });

  it('refills continuously and waitMs is exact', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ ratePerSec: 3, burst: 1 }, clock);
    expect(bucket.tryTake().ok).toBe(true);
    const r = bucket.tryTake();
    expect(r).toEqual({ ok: false, waitMs: 334 }); // 333.3 ms rounded up
    clock.advance(333);
    expect(bucket.tryTake()).toEqual({ ok: false, waitMs: 1 });
    clock.advance(1);
    expect(bucket.tryTake().ok).toBe(true);
  });

  it('never holds more than burst and takes n tokens at once', () => {
    const clock = new FakeClock();
    const bucket = new TokenBucket({ ratePerSec: 10, burst: 5 }, clock);
    clock.advance(60_000);
    expect(bucket.tokens).toBe(5);
    expect(bucket.tryTake(5).ok).toBe(true);
    expect(bucket.tryTake(2)).toEqual({ ok: false, waitMs: 200 });
    clock.advance(200);
    expect(bucket.tryTake(2).ok).toBe(true);
    expect(() => bucket.tryTake(6)).toThrow(/`n` to be a finite number in \[0, `burst` \(5\)\], got 6/);
  });

  it('validates options', () => {
    expect(() => new TokenBucket({ ratePerSec: 0 }, new FakeClock())).toThrow(/`ratePerSec`.*got 0/);
    expect(() => new TokenBucket({ ratePerSec: 1, burst: 0.5 }, new FakeClock())).toThrow(/`burst`/);
  });
});

describe('LocalRateLimiter', () => {
  it('applies the first matching rule per host, each host with its own bucket', async () => {
    const clock = new FakeClock();
    const limiter = new LocalRateLimiter(
      {
        rules: [
          { hosts: 'slow.example.com', ratePerSec: 1, burst: 1 },
          { hosts: '*.example.com', ratePerSec: 2, burst: 2 },
        ],
      },
      clock,
    );
    expect(await limiter.tryAcquire('slow.example.com')).toEqual({ ok: true, waitMs: 0 });
    expect(await limiter.tryAcquire('slow.example.com')).toEqual({ ok: false, waitMs: 1000 });
    expect((await limiter.tryAcquire('a.example.com')).ok).toBe(true);
    expect((await limiter.tryAcquire('a.example.com')).ok).toBe(true);
    expect(await limiter.tryAcquire('a.example.com')).toEqual({ ok: false, waitMs: 500 });
    expect((await limiter.tryAcquire('b.example.com:8080')).ok).toBe(true);
    // No rule: unlimited.
    for (let i = 0; i < 100; i++) expect(limiter.take('other.org').ok).toBe(true);
  });

  it('takes from the global and the host bucket atomically', () => {
    const clock = new FakeClock();
    const limiter = new LocalRateLimiter(
      { global: { ratePerSec: 10, burst: 2 }, rules: [{ hosts: '*', ratePerSec: 1, burst: 1 }] },
      clock,
    );
    expect(limiter.take('a').ok).toBe(true);
    // Host a is empty: nothing is taken from the global bucket.
    expect(limiter.take('a')).toEqual({ ok: false, waitMs: 1000 });
    expect(limiter.take('b').ok).toBe(true);
    expect(limiter.take('c')).toEqual({ ok: false, waitMs: 100 });
  });

  it('keeps a bounded number of buckets', () => {
    const clock = new FakeClock();
    const limiter = new LocalRateLimiter({ rules: [{ hosts: '*', ratePerSec: 1 }], maxKeys: 2 }, clock);
    limiter.take('a');
    limiter.take('b');
    limiter.take('c');
    // a was forgotten: it starts with a full bucket again.
    expect(limiter.take('a').ok).toBe(true);
    expect(limiter.take('c').ok).toBe(false);
  });

  it('matches host patterns and rejects bad ones', () => {
    const m = hostMatcher('*.Example.com');
    expect([m('example.com'), m('a.b.example.com'), m('badexample.com')]).toEqual([true, true, false]);
    expect(hostMatcher('*')('x')).toBe(true);
    expect(
      () => new LocalRateLimiter({ rules: [{ hosts: 'a*.com', ratePerSec: 1 }] }, new FakeClock()),
    ).toThrow(/`rules\[0\]\.hosts`.*got "a\*\.com"/);
  });
});
