/**
 * The Frontier contract (src/ports/frontier.ts) as one suite every adapter runs:
 *
 *   frontierContract('memory', async (clock, opts) => ({ frontier: new MemoryFrontier({ clock, ...opts }), cleanup }));
 *
 * `make` returns an unopened frontier on fresh, empty storage; the suite opens it. Time is
 * the FakeClock only: no test sleeps and no URL is ever fetched.
 */
import { describe, expect, it } from 'vitest';
import { lease, leaseOne, type MakeFrontier, req, useFrontier } from '../helpers/frontier-contract.js';
import { type AcrossHosts, leaseCases } from './frontier-contract-lease.js';
import { queueCases } from './frontier-contract-queue.js';

export type { MakeFrontier } from '../helpers/frontier-contract.js';

/**
 * `acrossHosts`: how the adapter orders ready tasks of different hosts within a priority
 * (src/ports/frontier.ts): 'fifo' by enqueue order (memory, Redis) or 'fair' turns (SQLite).
 */
export function frontierContract(name: string, make: MakeFrontier, acrossHosts: AcrossHosts = 'fifo'): void {
  describe(`${name} frontier contract`, () => {
    queueCases(make);
    leaseCases(make, acrossHosts);
    observationCases(make);
  });
}

/** stats, nextReadyAt and the open/close life cycle. */
function observationCases(make: MakeFrontier): void {
  const setup = useFrontier(make);

  describe('stats', () => {
    it('counts every state and pending tasks by priority', async () => {
      const { f, clock } = await setup();
      expect(await f.stats()).toEqual({
        pending: 0,
        delayed: 0,
        leased: 0,
        done: 0,
        dead: 0,
        pendingByPriority: {},
      });
      await f.enqueue([
        req('a'),
        req('b'),
        req('c'),
        req('d'),
        req('e', { priority: 1 }),
        req('f', { priority: 2, notBefore: clock.now() + 1 }),
      ]);
      const [a, b, c] = await lease(f, 3);
      await f.ack(a!);
      await f.deadLetter(b!, 'http_404');
      expect(c).toBeDefined();
      expect(await f.stats()).toEqual({
        pending: 3,
        delayed: 1,
        leased: 1,
        done: 1,
        dead: 1,
        pendingByPriority: { '0': 1, '1': 1, '2': 1 },
      });
    });
  });

  describe('nextReadyAt', () => {
    it('is undefined when nothing is pending or leased', async () => {
      const { f } = await setup();
      expect(await f.nextReadyAt()).toBeUndefined();
      await f.enqueue([req('a')]);
      await f.ack(await leaseOne(f));
      expect(await f.nextReadyAt()).toBeUndefined();
    });

    it('is the earliest notBefore of delayed tasks', async () => {
      const { f, clock } = await setup();
      const t0 = clock.now();
      await f.enqueue([req('a', { notBefore: t0 + 500 }), req('b', { notBefore: t0 + 200, priority: 9 })]);
      expect(await f.nextReadyAt()).toBe(t0 + 200);
    });

    it('is at most now when a task is ready', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a', { notBefore: clock.now() + 500 }), req('b')]);
      clock.advance(100);
      expect(await f.nextReadyAt()).toBeLessThanOrEqual(clock.now());
    });

    it('considers the earliest lease expiry, when a task would come back', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a'), req('b', { notBefore: clock.now() + 120_000 })]);
      const task = await leaseOne(f);
      expect(await f.nextReadyAt()).toBe(task.leaseExpiresAt);
    });
  });

  describe('open and close', () => {
    it('are idempotent, and close keeps the tasks for the next open', async () => {
      const { f } = await setup();
      await f.open();
      await f.enqueue([req('a'), req('b')]);
      const task = await leaseOne(f);
      await f.close();
      await f.close();
      await f.open();
      expect(await f.stats()).toMatchObject({ pending: 1, leased: 1 });
      expect(await f.ack(task)).toBe(true);
    });

    it('refuses calls while closed', async () => {
      const { f } = await setup();
      await f.close();
      await expect(f.enqueue([req('a')])).rejects.toThrow(/not open/);
      await expect(f.stats()).rejects.toThrow(/not open/);
    });
  });
}
