import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import {
  bufferRoom,
  hostBufferCap,
  LEASE_AHEAD,
  LeaseAhead,
  leaseAhead,
  leaseRoom,
  minLeaseBatch,
  StartMeter,
} from '../../src/engine/scheduler/lease-ahead.js';
import { html, type Site, startEngine, startSite, turns } from '../helpers/engine.js';

/** What the scheduler leases ahead: about a second of its fetching (lease-ahead.ts). */
describe('StartMeter', () => {
  it('counts the tasks started in the last second, on the clock', () => {
    const clock = new FakeClock();
    const m = new StartMeter(clock);
    expect(m.count()).toBe(0);
    for (let i = 0; i < 10; i++) {
      m.started();
      clock.advance(100);
    }
    // Ten starts over the last second, one per 100 ms; the window is the current slice and the
    // seven before it (875-1000 ms): the oldest one or two have left it.
    expect(m.count()).toBeGreaterThanOrEqual(8);
    expect(m.count()).toBeLessThanOrEqual(10);
    clock.advance(500);
    expect(m.count()).toBeGreaterThanOrEqual(3);
    expect(m.count()).toBeLessThanOrEqual(5);
    clock.advance(LEASE_AHEAD.windowMs);
    expect(m.count()).toBe(0);
    m.started();
    expect(m.count()).toBe(1);
  });
});

describe('lease-ahead bounds', () => {
  const o = { bufferSize: 1024, perHostBuffer: 512 };

  it('hold what the daemon started in the last second, or can start now: at least minTasks, at most bufferSize', () => {
    expect(leaseAhead(o, 0, 0)).toBe(LEASE_AHEAD.minTasks);
    expect(leaseAhead(o, 300, 0)).toBe(300);
    expect(leaseAhead(o, 300, 100)).toBe(300);
    // A daemon that just joined: nothing started yet, 128 free slots.
    expect(leaseAhead(o, 0, 128)).toBe(128);
    expect(leaseAhead(o, 5000, 0)).toBe(1024);
  });

  it('lease when there is room for a quarter of it, or the buffers are empty; one more per waiting host', () => {
    expect(minLeaseBatch({}, 300)).toBe(75);
    expect(minLeaseBatch({ minLeaseBatch: 3 }, 300)).toBe(3);
    expect(bufferRoom({}, 300, 0, 250)).toBe(50);
    expect(leaseRoom({}, 300, 0, 250)).toBe(0);
    expect(leaseRoom({}, 300, 0, 225)).toBe(75);
    expect(leaseRoom({}, 300, 40, 250)).toBe(90);
    expect(leaseRoom({}, 16, 0, 0)).toBe(16);
    expect(bufferRoom({}, 16, 0, 40)).toBe(0);
  });

  it('give a host twice its limit, within what the buffers hold; one task to a host that waits', () => {
    expect(hostBufferCap(o, 1000, 100, false)).toBe(200);
    // A host at its limit of 256 on a daemon that fetches 300 pages a second: 300, not 512.
    expect(hostBufferCap(o, 300, 256, false)).toBe(300);
    expect(hostBufferCap(o, 16, 1, false)).toBe(2);
    expect(hostBufferCap(o, 1000, 100, true)).toBe(1);
  });
});

describe('LeaseAhead', () => {
  it('counts free slots only while no host was told to wait: under a rate limit, what it started in the last second', () => {
    const clock = new FakeClock();
    const ahead = new LeaseAhead({ bufferSize: 1024, perHostBuffer: 512 }, clock);
    for (let i = 0; i < 40; i++) ahead.started();
    // 200 free slots, nothing waits: a daemon that can start 200 now leases 200.
    ahead.update(200);
    expect(ahead.room(0, 0)).toBe(200);
    // A rate limit holds its starts back: the slots are not what it can start, its 40 starts are.
    ahead.update(200, false, true);
    expect(ahead.room(0, 0)).toBe(40);
    expect(ahead.room(0, 30)).toBe(10);
    // Nothing started lately and held back: minTasks.
    clock.advance(LEASE_AHEAD.windowMs);
    ahead.update(200, false, true);
    expect(ahead.room(0, 0)).toBe(LEASE_AHEAD.minTasks);
  });
});

describe('the scheduler leases ahead', () => {
  const sites: Site[] = [];
  let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
  afterEach(async () => {
    await engine?.close();
    for (const s of sites.splice(0)) await s.close();
  });

  it('minTasks at first, then at most what it started in the last second or can start, whatever bufferSize', async () => {
    const routes: Parameters<typeof startSite>[0] = {};
    for (let i = 0; i < 300; i++) routes[`/p${i}`] = html('x');
    const s = await startSite(routes);
    sites.push(s);
    engine = await startEngine({
      // Eight slots: what it can start at once stays below minTasks.
      concurrency: { global: 8, globalAdaptive: false, maxPerHost: 8, initialPerHost: 8, adaptive: false },
      jobs: [{ id: 'j', seeds: [`${s.origin}/p0`], robots: false }],
    });
    const e = engine;
    await e.frontier.enqueue(
      Array.from({ length: 300 }, (_, i) => ({ url: `${s.origin}/p${i}`, jobId: 'j' })),
    );
    const scheduler = e.scheduler({ bufferSize: 1024, perHostBuffer: 512 });
    const asked: { max: number; started: number }[] = [];
    const lease = e.frontier.lease.bind(e.frontier);
    e.frontier.lease = (opts) => {
      asked.push({ max: opts.max, started: scheduler.counters.ok + scheduler.inflightCount });
      return lease(opts);
    };
    // The fake clock stands still: every start is within the last second.
    await scheduler.run();
    expect(scheduler.counters.ok).toBe(300);
    expect(asked[0]).toEqual({ max: LEASE_AHEAD.minTasks, started: 0 });
    for (const a of asked) expect(a.max).toBeLessThanOrEqual(Math.max(LEASE_AHEAD.minTasks, a.started));
    // It grew with the starts (8 at a time): not stuck at minTasks.
    expect(Math.max(...asked.map((a) => a.max))).toBeGreaterThan(LEASE_AHEAD.minTasks);
  });

  it('under a rate limit, what it started in the last second, not what its free slots could start', async () => {
    const routes: Parameters<typeof startSite>[0] = {};
    for (let i = 0; i < 200; i++) routes[`/p${i}`] = html('x');
    const s = await startSite(routes);
    sites.push(s);
    engine = await startEngine({
      // 64 free slots, 20 pages/s: the slots are not what holds it back.
      concurrency: { global: 64, globalAdaptive: false, maxPerHost: 64, initialPerHost: 64, adaptive: false },
      rateLimits: { global: { ratePerSec: 20, burst: 1 } },
      jobs: [{ id: 'j', seeds: [`${s.origin}/p0`], robots: false }],
    });
    const e = engine;
    await e.frontier.enqueue(
      Array.from({ length: 200 }, (_, i) => ({ url: `${s.origin}/p${i}`, jobId: 'j' })),
    );
    const scheduler = e.scheduler({ bufferSize: 1024, perHostBuffer: 512 });
    const asked: number[] = [];
    const lease = e.frontier.lease.bind(e.frontier);
    e.frontier.lease = (opts) => {
      asked.push(opts.max);
      return lease(opts);
    };
    void scheduler.run();
    // Six seconds of the fake clock in 50 ms steps: ~120 pages at 20 a second. What it holds
    // once its first lease (64 tasks, 3.2 s of them) has run down.
    let heldLater = 0;
    for (let t = 50; t <= 6000; t += 50) {
      e.clock.advance(50);
      await turns();
      if (t >= 4000) heldLater = Math.max(heldLater, scheduler.bufferedCount);
    }
    expect(scheduler.counters.ok).toBeGreaterThanOrEqual(110);
    expect(scheduler.counters.ok).toBeLessThanOrEqual(125);
    // Its first lease, before anything waited, takes what its free slots can start; then it holds
    // about a second of starts (20, or minTasks) and the waiting host's one task, where its free
    // slots kept up to 63 buffered (3 s of its fetching).
    expect(asked[0]).toBe(64);
    expect(heldLater).toBeLessThanOrEqual(Math.max(LEASE_AHEAD.minTasks, 21) + 1);
    await scheduler.stop(0);
  });
});
