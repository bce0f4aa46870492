import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { LimitAlgorithm, LimitSample } from '../../src/core/limit/limit.js';
import { ConcurrencyLimiter, HostLimiters } from '../../src/core/limiter.js';
import { waitFor } from '../helpers/wait.js';

/** A fixed limit that records its samples. */
class FixedLimit implements LimitAlgorithm {
  samples: LimitSample[] = [];
  #listeners = new Set<(l: number) => void>();
  constructor(public limit: number) {}
  onSample(sample: LimitSample): void {
    this.samples.push(sample);
  }
  onChange(listener: (l: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  set(limit: number): void {
    this.limit = limit;
    for (const l of this.#listeners) l(limit);
  }
}

describe('ConcurrencyLimiter', () => {
  it('hands out permits up to the limit and reports samples', () => {
    const clock = new FakeClock();
    const algo = new FixedLimit(2);
    const limiter = new ConcurrencyLimiter(algo, clock);
    const a = limiter.tryAcquire();
    const b = limiter.tryAcquire();
    expect(limiter.tryAcquire()).toBeUndefined();
    expect(limiter.inflight).toBe(2);
    clock.advance(40);
    a?.success({ lagMs: 3, queuedMs: 7 });
    b?.dropped();
    expect(limiter.inflight).toBe(0);
    expect(algo.samples).toEqual([
      { rttMs: 40, lagMs: 3, queuedMs: 7, inflight: 1, dropped: false, startedAt: 0 },
      { rttMs: 40, inflight: 2, dropped: true, startedAt: 0 },
    ]);
  });

  it('ignore frees the slot without a sample; a permit counts once', () => {
    const clock = new FakeClock();
    const algo = new FixedLimit(1);
    const limiter = new ConcurrencyLimiter(algo, clock);
    const p = limiter.tryAcquire();
    p?.ignore();
    p?.success();
    p?.dropped();
    expect(limiter.inflight).toBe(0);
    expect(algo.samples).toEqual([]);
  });

  it('notifies onAvailable when a permit frees or the limit rises', () => {
    const clock = new FakeClock();
    const algo = new FixedLimit(1);
    const limiter = new ConcurrencyLimiter(algo, clock);
    let calls = 0;
    const off = limiter.onAvailable(() => calls++);
    const p = limiter.tryAcquire();
    algo.set(2);
    expect(calls).toBe(1);
    p?.success();
    expect(calls).toBe(2);
    off();
    algo.set(3);
    expect(calls).toBe(2);
  });
});

describe('HostLimiters', () => {
  it('limits per host and under the global ceiling', () => {
    const clock = new FakeClock();
    const hosts = new HostLimiters({ globalMaxInflight: 3, createLimit: () => new FixedLimit(2) }, clock);
    const a1 = hosts.tryAcquire('a');
    expect(hosts.tryAcquire('a')).toBeDefined();
    expect(hosts.tryAcquire('a')).toBeUndefined();
    expect(hosts.tryAcquire('b')).toBeDefined();
    expect(hosts.tryAcquire('c')).toBeUndefined(); // global ceiling
    expect(hosts.inflight).toBe(3);
    const events: (string | undefined)[] = [];
    hosts.onAvailable((e) => events.push(e.host));
    a1?.success();
    expect(events).toEqual(['a', undefined]);
    expect(hosts.tryAcquire('c')).toBeDefined();
  });

  it('enforces a lowered global limit, within its ceiling, and says when requests reached it', () => {
    const hosts = new HostLimiters(
      { globalMaxInflight: 4, createLimit: () => new FixedLimit(10) },
      new FakeClock(),
    );
    const events: (string | undefined)[] = [];
    hosts.onAvailable((e) => events.push(e.host));
    const permits = [0, 1, 2, 3].map(() => hosts.tryAcquire('a'));
    expect(hosts.takeReached()).toBe(true);
    hosts.setGlobalLimit(2);
    expect(hosts.globalLimit).toBe(2);
    expect(hosts.globalMaxInflight).toBe(4);
    // 4 in flight under a limit of 2: releases that leave 3, then 2, free nothing.
    permits[0]?.success();
    permits[1]?.success();
    expect(events).toEqual([]);
    expect(hosts.tryAcquire('b')).toBeUndefined();
    permits[2]?.success();
    expect(events).toEqual(['a', undefined]);
    expect(hosts.tryAcquire('b')).toBeDefined();
    expect(hosts.inflight).toBe(2);
    hosts.takeReached();
    // Raised past the ceiling: held at it, and waiting hosts may pass at once.
    events.length = 0;
    hosts.setGlobalLimit(100);
    expect(hosts.globalLimit).toBe(4);
    expect(events).toEqual([undefined]);
    expect(hosts.takeReached()).toBe(false);
    hosts.tryAcquire('c');
    hosts.tryAcquire('c');
    expect(hosts.takeReached()).toBe(true);
    expect(hosts.takeReached()).toBe(true); // still at the limit
  });

  it('evicts idle hosts past maxHosts, never busy ones', () => {
    const clock = new FakeClock();
    const hosts = new HostLimiters({ maxHosts: 2, createLimit: () => new FixedLimit(1) }, clock);
    const busy = hosts.tryAcquire('busy');
    hosts.tryAcquire('x')?.ignore();
    hosts.tryAcquire('y')?.ignore();
    hosts.tryAcquire('z')?.ignore();
    expect(hosts.size).toBe(2);
    expect([...hosts.hosts()].map((h) => h.host)).toEqual(['busy', 'z']);
    expect(hosts.tryAcquire('busy')).toBeUndefined();
    busy?.success();
  });

  it('uses AimdLimit per host by default', () => {
    const hosts = new HostLimiters({ aimd: { initialLimit: 4, minWindowSamples: 2 } }, new FakeClock());
    expect(hosts.limitOf('a')).toBe(4); // the relative target's first probe, at the initial limit
    // Two samples close the probe, which in slow start doubles the limit: an AIMD limit.
    const permits = [hosts.tryAcquire('a'), hosts.tryAcquire('a')];
    for (const p of permits) p?.success({ rttMs: 20 });
    expect(hosts.limitOf('a')).toBe(8);
    expect(() => new HostLimiters({ aimd: { backoffRatio: 0.1 } }, new FakeClock())).toThrow(/backoffRatio/);
    expect(() => new HostLimiters({ globalMaxInflight: 0 }, new FakeClock())).toThrow(/globalMaxInflight/);
  });

  it("makes a new host's limit for the kind of its first request; limitOf makes none", () => {
    const kinds: string[] = [];
    const hosts = new HostLimiters(
      {
        createLimit: (_host, kind) => {
          kinds.push(kind);
          return new FixedLimit(kind === 'browser' ? 2 : 8);
        },
      },
      new FakeClock(),
    );
    // Asked before any request (the scheduler sizes its buffers so): the http initial limit,
    // and no limiter yet, so a render host's first request still gets its own.
    expect(hosts.limitOf('shop')).toBe(8);
    expect(hosts.limitOf('shop', 'browser')).toBe(2);
    expect(hosts.size).toBe(0);
    const permits = [hosts.tryAcquire('shop', 'browser'), hosts.tryAcquire('shop', 'browser')];
    expect(hosts.tryAcquire('shop', 'browser')).toBeUndefined();
    // The first request decided: a later http request to the same host shares that limit.
    expect(hosts.tryAcquire('shop')).toBeUndefined();
    expect(hosts.limitOf('shop')).toBe(2);
    expect(hosts.tryAcquire('api')).toBeDefined();
    expect(hosts.limitOf('api')).toBe(8);
    for (const p of permits) p?.ignore();
    expect(kinds.slice(-2)).toEqual(['browser', 'http']);
  });
});

describe('HostLimiters.setKind (render kind auto decides a host)', () => {
  it('makes the host a new limiter of the new kind; permits in flight release on the old one', () => {
    const clock = new FakeClock();
    const limiters = new HostLimiters(
      { createLimit: (_h, kind) => new FixedLimit(kind === 'browser' ? 2 : 16) },
      clock,
    );
    const a = limiters.tryAcquire('h', 'browser');
    const b = limiters.tryAcquire('h', 'browser');
    expect(limiters.tryAcquire('h', 'browser')).toBeUndefined();
    limiters.setKind('h', 'http');
    expect(limiters.limitOf('h')).toBe(16);
    expect(limiters.inflightOf('h')).toBe(0);
    const c = limiters.tryAcquire('h', 'http');
    expect(c).toBeDefined();
    a?.ignore();
    b?.ignore();
    expect(limiters.inflight).toBe(1);
    expect(limiters.inflightOf('h')).toBe(1);
  });
});

describe('HostLimiters listeners', () => {
  it('a throwing onLimitChange or onAvailable listener stops neither the others nor the limiter', async () => {
    const clock = new FakeClock();
    const failed: string[] = [];
    const onWarning = (w: Error) => failed.push(w.message);
    process.on('warning', onWarning);
    try {
      const algo = new FixedLimit(1);
      const hosts = new HostLimiters({ createLimit: () => algo }, clock);
      const changes: number[] = [];
      const available: (string | undefined)[] = [];
      hosts.onLimitChange(() => {
        throw new Error('limit listener');
      });
      hosts.onLimitChange((_host, limit) => changes.push(limit));
      hosts.onAvailable(() => {
        throw new Error('available listener');
      });
      hosts.onAvailable((e) => available.push(e.host));
      const permit = hosts.tryAcquire('a.test');
      expect(() => algo.set(2)).not.toThrow();
      expect(changes).toEqual([2]);
      expect(() => permit?.success()).not.toThrow();
      expect(hosts.inflight).toBe(0);
      expect(available).toEqual(['a.test', 'a.test']);
      await waitFor(() => failed.some((m) => m.includes("'limitChange'") && m.includes('limit listener')), {
        what: 'the limitChange listener warning',
        every: 'turn',
      });
    } finally {
      process.off('warning', onWarning);
    }
  });
});
