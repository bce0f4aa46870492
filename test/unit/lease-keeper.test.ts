import { describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/adapters/frontier/memory/memory-frontier.js';
import { FakeClock } from '../../src/core/clock.js';
import { LEASE_KEEPER, LeaseKeeper } from '../../src/engine/scheduler/lease-keeper.js';
import type { Frontier, Task } from '../../src/ports/frontier.js';
import { turns } from '../helpers/engine.js';

/**
 * The lease keeper on a FakeClock with a real in-memory frontier: a task it keeps is never
 * leased by another owner however long it runs, and once it stops keeping it (the task ended,
 * or the daemon died) the task comes back within leaseMs, for any leaseMs.
 */
async function setup(leaseMs: number) {
  const clock = new FakeClock();
  const frontier = new MemoryFrontier({ clock });
  await frontier.open();
  await frontier.enqueue([{ url: 'http://a.test/1', jobId: 'j' }]);
  const [task] = await frontier.lease({ max: 1, leaseMs, owner: 'holder' });
  const lost: Task[] = [];
  const errors: unknown[] = [];
  let extends_ = 0;
  const counted: Pick<Frontier, 'extend'> = {
    extend: (t, ms) => {
      extends_++;
      return frontier.extend(t, ms);
    },
  };
  const keeper = new LeaseKeeper({
    frontier: counted,
    clock,
    leaseMs,
    onLost: (t) => lost.push(t),
    onError: (e) => errors.push(e),
  });
  const other = () => frontier.lease({ max: 1, leaseMs, owner: 'other' });
  return { clock, frontier, task: task!, keeper, lost, errors, other, extends: () => extends_ };
}

/** Advances the clock by ms, letting the extension calls it triggers finish. */
async function step(clock: FakeClock, ms: number): Promise<void> {
  clock.advance(ms);
  await turns(5);
}

describe('LeaseKeeper', () => {
  for (const leaseMs of [3_000, 20_000, 120_000, 300_000]) {
    it(`keeps a running task's lease for 5 x leaseMs, and it comes back within leaseMs once not kept (leaseMs ${leaseMs})`, async () => {
      const s = await setup(leaseMs);
      s.keeper.track(s.task);
      for (let t = 0; t < 5 * leaseMs; t += leaseMs / 20) {
        await step(s.clock, leaseMs / 20);
        expect(await s.other()).toEqual([]);
      }
      // About one extension per quarter to half a lease, never one per step.
      expect(s.extends()).toBeGreaterThanOrEqual(5);
      expect(s.extends()).toBeLessThanOrEqual(5 * 4 + 1);
      // The daemon dies: nothing extends the lease any more.
      s.keeper.stop();
      const died = s.clock.now();
      let back: Task[] = [];
      while (back.length === 0) {
        await step(s.clock, 50);
        back = await s.other();
      }
      const after = s.clock.now() - died;
      expect(back[0]).toMatchObject({ id: s.task.id, attempts: 0 });
      expect(after).toBeLessThanOrEqual(leaseMs);
      // It was kept with at least a quarter of the lease ahead (extended at half, a quarter early at most).
      expect(after).toBeGreaterThan(leaseMs * (1 - LEASE_KEEPER.extendWhenLeft - LEASE_KEEPER.batchWindow));
      expect(s.lost).toEqual([]);
      expect(s.clock.pendingTimers()).toBe(0);
    });
  }

  it('a task not tracked (buffered, not started) is not extended: back leaseMs after its lease', async () => {
    const s = await setup(10_000);
    await step(s.clock, 9_999);
    expect(await s.other()).toEqual([]);
    await step(s.clock, 1);
    expect(await s.other()).toHaveLength(1);
    expect(s.extends()).toBe(0);
  });

  it('forgets an ended task: no more extensions, no timer left', async () => {
    const s = await setup(10_000);
    s.keeper.track(s.task);
    await step(s.clock, 6_000);
    const n = s.extends();
    expect(n).toBe(1);
    s.keeper.untrack(s.task);
    expect(s.clock.pendingTimers()).toBe(0);
    await step(s.clock, 30_000);
    expect(s.extends()).toBe(n);
  });

  it('reports a lease lost to another owner, once, and lets go of the task', async () => {
    const s = await setup(10_000);
    await step(s.clock, 10_001);
    expect(await s.other()).toHaveLength(1);
    // The holder starts it late (its lease expired and was taken back meanwhile).
    s.keeper.track(s.task);
    await step(s.clock, 0);
    expect(s.lost).toEqual([s.task]);
    expect(s.keeper.size).toBe(0);
    expect(s.clock.pendingTimers()).toBe(0);
  });

  it('tries a failed extension again after retryMs, not at once, until it goes through', async () => {
    const clock = new FakeClock();
    const frontier = new MemoryFrontier({ clock });
    await frontier.open();
    await frontier.enqueue([{ url: 'http://a.test/1', jobId: 'j' }]);
    const [task] = await frontier.lease({ max: 1, leaseMs: 10_000, owner: 'holder' });
    const calls: number[] = [];
    const errors: unknown[] = [];
    const keeper = new LeaseKeeper({
      frontier: {
        extend: (t, ms) => {
          calls.push(clock.now());
          // Down for the first three calls (Redis restarting), then back.
          return calls.length <= 3 ? Promise.reject(new Error('down')) : frontier.extend(t, ms);
        },
      },
      clock,
      leaseMs: 10_000,
      onLost: () => {},
      onError: (e) => errors.push(e),
    });
    keeper.track(task!);
    const start = clock.now();
    for (let i = 0; i < 100; i++) await step(clock, 100);
    expect(calls.map((t) => t - start)).toEqual([5_000, 6_000, 7_000, 8_000]);
    expect(errors).toHaveLength(3);
    expect(await frontier.lease({ max: 1, leaseMs: 10_000, owner: 'other' })).toEqual([]);
    keeper.stop();
  });
});
