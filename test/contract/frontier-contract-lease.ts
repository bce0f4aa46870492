/** Contract cases for the life of a lease: expiry, ack, retry, dead letters, redrive. */
import { describe, expect, it } from 'vitest';
import {
  LEASE_MS,
  lease,
  leaseOne,
  type MakeFrontier,
  paths,
  req,
  url,
  useFrontier,
} from '../helpers/frontier-contract.js';

export type AcrossHosts = 'fifo' | 'fair';

export function leaseCases(make: MakeFrontier, acrossHosts: AcrossHosts): void {
  const setup = useFrontier(make);

  describe('leases', () => {
    it('returns an expired lease to the queue with the same attempts; the stale token does nothing', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a')]);
      const stale = await leaseOne(f);
      await f.retry(stale, { at: clock.now(), reason: 'timeout', chargeAttempt: true });
      const first = await leaseOne(f);
      clock.advance(LEASE_MS - 1);
      expect(await lease(f)).toEqual([]);
      clock.advance(1);
      const second = await leaseOne(f);
      expect(second).toMatchObject({ id: first.id, attempts: 1, lastError: 'timeout' });
      expect(second.leaseToken).not.toBe(first.leaseToken);
      expect(await f.ack(first)).toBe(false);
      expect(await f.retry(first, { at: clock.now(), reason: 'x', chargeAttempt: true })).toBe(false);
      expect(await f.deadLetter(first, 'x')).toBe(false);
      expect(await f.stats()).toMatchObject({ leased: 1, pending: 0, done: 0, dead: 0 });
      expect(await f.ack(second)).toBe(true);
      expect(await f.ack(second)).toBe(false);
    });

    it('accepts the token of an expired lease until the task is leased again', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a')]);
      const task = await leaseOne(f);
      clock.advance(LEASE_MS + 1);
      expect(await f.listLeased()).toEqual([task]);
      expect(await f.ack(task)).toBe(true);
      expect(await f.stats()).toMatchObject({ leased: 0, done: 1 });
    });

    it('extend moves the expiry to now + leaseMs and keeps the token', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a'), req('b')]);
      const [a, b] = await lease(f, 2);
      clock.advance(LEASE_MS - 1);
      expect(await f.extend(a!, LEASE_MS)).toBe(true);
      const extendedTo = clock.now() + LEASE_MS;
      clock.advance(1);
      // b expired and comes back; a is still leased, until extendedTo.
      expect(paths(await lease(f))).toEqual(['b']);
      clock.advance(extendedTo - clock.now() - 1);
      expect(await lease(f, 10)).toEqual([]);
      expect(await f.ack(a!)).toBe(true);
      expect(await f.ack(b!)).toBe(false);
      expect(await f.stats()).toMatchObject({ leased: 1, done: 1, pending: 0 });
    });

    it('a lease that is not extended comes back leaseMs after its last extension', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a')]);
      const task = await leaseOne(f);
      for (let i = 0; i < 3; i++) {
        clock.advance(LEASE_MS / 2);
        expect(await f.extend(task, LEASE_MS)).toBe(true);
      }
      expect(await f.nextReadyAt()).toBe(clock.now() + LEASE_MS);
      clock.advance(LEASE_MS - 1);
      expect(await lease(f)).toEqual([]);
      clock.advance(1);
      const again = await leaseOne(f);
      expect(again).toMatchObject({ id: task.id, attempts: 0 });
      // The old holder's token is stale now: extend, like ack, does nothing.
      expect(await f.extend(task, LEASE_MS)).toBe(false);
      expect(await f.ack(task)).toBe(false);
      expect(await f.ack(again)).toBe(true);
    });

    it('extend of a finished task or of an expired lease taken back does nothing', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a'), req('b')]);
      const [a, b] = await lease(f, 2);
      await f.ack(a!);
      expect(await f.extend(a!, LEASE_MS)).toBe(false);
      expect(await f.stats()).toMatchObject({ leased: 1, done: 1 });
      // An expired lease not yet taken back keeps its token working, as for ack.
      clock.advance(LEASE_MS + 1);
      expect(await f.extend(b!, LEASE_MS)).toBe(true);
      expect(await lease(f)).toEqual([]);
      expect(await f.nextReadyAt()).toBe(clock.now() + LEASE_MS);
    });

    it('lists leased tasks with their tokens', async () => {
      const { f } = await setup();
      await f.enqueue([req('a'), req('b'), req('c')]);
      const leased = await lease(f, 2, { owner: 'w2' });
      expect(await f.listLeased()).toEqual(leased);
      await f.ack(leased[0]!);
      expect(paths(await f.listLeased())).toEqual(['b']);
    });

    it("lists one owner's leases, expired ones included, for a daemon restarted under that owner", async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a'), req('b'), req('c')]);
      const mine = await lease(f, 1, { owner: 'w1' });
      const theirs = await lease(f, 1, { owner: 'w2' });
      expect(await f.listLeased({ owner: 'w1' })).toEqual(mine);
      expect(await f.listLeased({ owner: 'w2' })).toEqual(theirs);
      expect(await f.listLeased({ owner: 'nobody' })).toEqual([]);
      clock.advance(LEASE_MS + 1);
      expect(paths(await f.listLeased({ owner: 'w1' }))).toEqual(['a']);
      expect(paths(await f.listLeased())).toEqual(['a', 'b']);
    });

    it('skips excluded hosts and keeps their tasks for later', async () => {
      const { f } = await setup();
      await f.enqueue([
        req('a1', { url: url('a1', 'a.example.com') }),
        req('b1', { url: url('b1', 'b.example.com') }),
        req('a2', { url: url('a2', 'a.example.com') }),
        req('c1', { url: url('c1', 'c.example.com:8080') }),
        req('b2', { url: url('b2', 'b.example.com') }),
      ]);
      const excludeHosts = new Set(['a.example.com', 'c.example.com:8080']);
      expect(paths(await lease(f, 10, { excludeHosts }))).toEqual(['b1', 'b2']);
      expect(await lease(f, 10, { excludeHosts })).toEqual([]);
      // Fair turns: c1 is its host's first task, a2 host a's second.
      const rest = acrossHosts === 'fifo' ? ['a1', 'a2', 'c1'] : ['a1', 'c1', 'a2'];
      expect(paths(await lease(f, 10, { excludeHosts: new Set() }))).toEqual(rest);
    });

    it('honours the exclusions of each lease when they change from lease to lease', async () => {
      const { f } = await setup();
      const tasks = ['a1', 'a2', 'b1', 'c1', 'd1', 'd2'];
      await f.enqueue(tasks.map((p) => req(p, { url: url(p, `${p[0]}.example.com`) })));
      // One task a lease, one host free each time: that lease's set, not an earlier one's, decides.
      const one = async (excluded: string) =>
        paths(await lease(f, 1, { excludeHosts: new Set([...excluded].map((h) => `${h}.example.com`)) }));
      expect(await one('abc')).toEqual(['d1']);
      expect(await one('bcd')).toEqual(['a1']);
      expect(await one('acd')).toEqual(['b1']);
      expect(await one('ad')).toEqual(['c1']);
      expect(await one('d')).toEqual(['a2']);
      expect(await one('abc')).toEqual(['d2']);
      expect(await one('')).toEqual([]);
    });
  });

  describe('retry', () => {
    it('charges an attempt, records the reason and waits until `at`', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a')]);
      const task = await leaseOne(f);
      const at = clock.now() + 10_000;
      expect(await f.retry(task, { at, reason: 'http_503', chargeAttempt: true })).toBe(true);
      expect(await f.stats()).toMatchObject({ pending: 1, delayed: 1, leased: 0 });
      expect(await f.nextReadyAt()).toBe(at);
      clock.advance(9_999);
      expect(await lease(f)).toEqual([]);
      clock.advance(1);
      expect(await leaseOne(f)).toMatchObject({ id: task.id, attempts: 1, lastError: 'http_503' });
    });

    it('does not charge a deferral', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a')]);
      await f.retry(await leaseOne(f), { at: clock.now(), reason: 'breaker_open', chargeAttempt: false });
      expect(await leaseOne(f)).toMatchObject({ attempts: 0, lastError: 'breaker_open' });
    });

    it('queues a task retried for now behind the tasks already waiting at its priority', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a'), req('b')]);
      await f.retry(await leaseOne(f), { at: clock.now(), reason: 'rate_limited', chargeAttempt: false });
      expect(paths(await lease(f))).toEqual(['b', 'a']);
    });
  });

  describe('ack', () => {
    it('marks the task done', async () => {
      const { f } = await setup();
      await f.enqueue([req('a')]);
      expect(await f.ack(await leaseOne(f))).toBe(true);
      expect(await f.stats()).toMatchObject({ pending: 0, leased: 0, done: 1 });
    });

    it('with recrawlAt, schedules the next generation at that time with attempts 0', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a', { priority: 1, depth: 2 })]);
      await f.retry(await leaseOne(f), { at: clock.now(), reason: 'boom', chargeAttempt: true });
      const task = await leaseOne(f);
      const recrawlAt = clock.now() + 86_400_000;
      expect(await f.ack(task, { recrawlAt })).toBe(true);
      expect(await f.stats()).toMatchObject({ pending: 1, delayed: 1, done: 0, leased: 0 });
      expect(await f.nextReadyAt()).toBe(recrawlAt);
      clock.advance(86_400_000 - 1);
      expect(await lease(f)).toEqual([]);
      clock.advance(1);
      const next = await leaseOne(f);
      expect(next).toMatchObject({ id: task.id, generation: 1, attempts: 0, priority: 1, depth: 2 });
      expect(next.lastError).toBeUndefined();
    });
  });

  describe('dead letters', () => {
    async function withDead() {
      const ctx = await setup();
      const { f, clock } = ctx;
      await f.enqueue([req('a', { priority: 2, depth: 1 }), req('b'), req('c', { jobId: 'job2' })]);
      const [b, c, a] = await lease(f); // priority order: a has priority 2
      await f.retry(a!, { at: clock.now(), reason: 'http_503', chargeAttempt: true });
      await f.deadLetter((await leaseOne(f))!, 'http_503');
      clock.advance(1_000);
      await f.deadLetter(b!, 'http_404');
      clock.advance(1_000);
      await f.deadLetter(c!, 'robots');
      return { ...ctx, a: a!, b: b!, c: c! };
    }

    it('charges one more attempt and lists reason, attempts and deadAt in dead order', async () => {
      const { f, clock, a } = await withDead();
      expect(await f.stats()).toMatchObject({ pending: 0, leased: 0, dead: 3 });
      expect(await lease(f)).toEqual([]);
      const dead = await f.listDead();
      expect(dead[0]).toEqual({
        id: a.id,
        url: url('a'),
        jobId: 'job1',
        priority: 2,
        depth: 1,
        attempts: 2,
        reason: 'http_503',
        deadAt: clock.now() - 2_000,
      });
      expect(dead.map((d) => [d.reason, d.attempts, d.deadAt])).toEqual([
        ['http_503', 2, clock.now() - 2_000],
        ['http_404', 1, clock.now() - 1_000],
        ['robots', 1, clock.now()],
      ]);
    });

    it('pages and filters the list', async () => {
      const { f } = await withDead();
      expect((await f.listDead({ limit: 1, offset: 1 })).map((d) => d.reason)).toEqual(['http_404']);
      expect((await f.listDead({ jobId: 'job2' })).map((d) => d.reason)).toEqual(['robots']);
      expect(await f.listDead({ jobId: 'nope' })).toEqual([]);
    });

    it('redrives by ids: back to pending, ready now, attempts 0', async () => {
      const { f, a } = await withDead();
      expect(await f.redrive({ ids: [a.id, '999999', 'junk'] })).toBe(1);
      expect(await f.redrive({ ids: [a.id] })).toBe(0);
      expect(await f.redrive({ ids: [] })).toBe(0);
      expect(await f.stats()).toMatchObject({ pending: 1, delayed: 0, dead: 2 });
      expect(await leaseOne(f)).toMatchObject({ id: a.id, attempts: 0, generation: 0 });
      expect((await f.listDead()).map((d) => d.reason)).toEqual(['http_404', 'robots']);
    });

    it('redrives by job', async () => {
      const { f, a, c } = await withDead();
      expect(await f.redrive({ ids: [a.id], jobId: 'job2' })).toBe(0);
      expect(await f.redrive({ ids: [a.id, c.id], jobId: 'job2' })).toBe(1);
      expect(await f.redrive({ jobId: 'job2' })).toBe(0);
      expect(await f.redrive({ jobId: 'nope' })).toBe(0);
      expect(paths(await lease(f))).toEqual(['c']);
    });

    it('redrives everything when no ids are given, in dead order', async () => {
      const { f } = await withDead();
      expect(await f.redrive()).toBe(3);
      expect(await f.listDead()).toEqual([]);
      expect(await f.stats()).toMatchObject({ pending: 3, dead: 0 });
      expect(paths(await lease(f))).toEqual(['b', 'c', 'a']);
    });
  });
}
