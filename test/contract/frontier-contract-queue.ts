/** Contract cases for getting tasks into the frontier: enqueue, dedupe, order, bound, force, time. */
import { describe, expect, it } from 'vitest';
import {
  lease,
  leaseOne,
  type MakeFrontier,
  paths,
  req,
  url,
  useFrontier,
} from '../helpers/frontier-contract.js';

export function queueCases(make: MakeFrontier): void {
  const setup = useFrontier(make);

  describe('enqueue and dedupe', () => {
    it('counts added and duplicates, including duplicates inside one batch', async () => {
      const { f } = await setup();
      expect(await f.enqueue([req('a'), req('b'), req('a')])).toEqual({
        added: 2,
        duplicates: 1,
        dropped: 0,
      });
      expect(await f.enqueue([req('b'), req('c')])).toEqual({ added: 1, duplicates: 1, dropped: 0 });
      expect(paths(await lease(f))).toEqual(['a', 'b', 'c']);
    });

    it('dedupes per job: the same URL in two jobs is two tasks', async () => {
      const { f } = await setup();
      expect(await f.enqueue([req('a'), req('a', { jobId: 'job2' })])).toMatchObject({ added: 2 });
      const tasks = await lease(f);
      expect(tasks.map((t) => t.jobId)).toEqual(['job1', 'job2']);
      expect(tasks[0]?.id).not.toBe(tasks[1]?.id);
    });

    it('remembers a URL after it is done: a later plain enqueue is a duplicate', async () => {
      const { f } = await setup();
      await f.enqueue([req('a')]);
      expect(await f.ack(await leaseOne(f))).toBe(true);
      expect(await f.enqueue([req('a')])).toEqual({ added: 0, duplicates: 1, dropped: 0 });
      expect(await lease(f)).toEqual([]);
    });

    it('fills a task from the request, with defaults', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a', { depth: 3, priority: 2 }), req('b')]);
      const [b, a] = await lease(f); // b first: priority 0
      expect(a).toMatchObject({ url: url('a'), jobId: 'job1', host: 'example.com', depth: 3, priority: 2 });
      expect(b).toMatchObject({ url: url('b'), depth: 0, priority: 0, attempts: 0, generation: 0 });
      expect(b?.leaseExpiresAt).toBe(clock.now() + 60_000);
      expect(b?.lastError).toBeUndefined();
      expect(a?.leaseToken).toBeTypeOf('string');
      expect(a?.leaseToken).not.toBe(b?.leaseToken);
    });

    it('keeps the URL to request beside the key: the first enqueue of a key sets it', async () => {
      const { f } = await setup();
      const wire = 'http://example.com/a?z=1&utm_source=x&a=%7e';
      expect(
        await f.enqueue([
          req('a', { requestUrl: wire }),
          req('a', { requestUrl: 'http://example.com/a?other' }),
          req('b', { requestUrl: url('b') }), // the same as the key: nothing stored
        ]),
      ).toEqual({ added: 2, duplicates: 1, dropped: 0 });
      expect(await f.enqueue([req('a', { requestUrl: 'http://example.com/a?later' })])).toMatchObject({
        duplicates: 1,
      });
      const [a, b] = await lease(f);
      expect(a).toMatchObject({ url: url('a'), requestUrl: wire });
      expect(b?.url).toBe(url('b'));
      expect(b?.requestUrl).toBeUndefined();
      // It survives a retry, a dead letter and a redrive: the task is the same task.
      await f.retry(a!, { at: 0, reason: 'x', chargeAttempt: true });
      const again = await leaseOne(f);
      expect(again?.requestUrl).toBe(wire);
      await f.deadLetter(again!, 'http_500');
      expect((await f.listDead()).map((d) => d.requestUrl)).toEqual([wire]);
      expect(await f.redrive()).toBe(1);
      expect((await leaseOne(f))?.requestUrl).toBe(wire);
    });

    it('derives host as lower-case hostname plus port only when not the default', async () => {
      const { f } = await setup();
      await f.enqueue([
        { url: 'http://127.0.0.1:8080/x', jobId: 'j' },
        { url: 'http://example.com:80/y', jobId: 'j' },
        { url: 'https://example.com/z', jobId: 'j' },
      ]);
      expect((await lease(f)).map((t) => t.host)).toEqual(['127.0.0.1:8080', 'example.com', 'example.com']);
    });

    it('rejects a batch with an invalid URL as a whole', async () => {
      const { f } = await setup();
      await expect(f.enqueue([req('a'), { url: 'not a url', jobId: 'job1' }])).rejects.toThrow();
      expect((await f.stats()).pending).toBe(0);
      expect(await f.enqueue([req('a')])).toMatchObject({ added: 1 });
    });
  });

  describe('ordering', () => {
    it('leases by priority ascending, then FIFO by enqueue order', async () => {
      const { f } = await setup();
      await f.enqueue([req('a', { priority: 2 }), req('b'), req('c', { priority: 1 }), req('d')]);
      await f.enqueue([req('e', { priority: 1 }), req('f', { priority: 2 }), req('g')]);
      expect(paths(await lease(f))).toEqual(['b', 'd', 'g', 'c', 'e', 'a', 'f']);
    });

    it('returns at most max tasks and never the same task twice while leased', async () => {
      const { f } = await setup();
      await f.enqueue(['a', 'b', 'c'].map((p) => req(p)));
      expect(paths(await lease(f, 2))).toEqual(['a', 'b']);
      expect(paths(await lease(f, 2))).toEqual(['c']);
      expect(await lease(f, 2)).toEqual([]);
      expect(await lease(f, 0)).toEqual([]);
    });
  });

  describe('notBefore', () => {
    it('holds a delayed task until its time, then leases it by priority', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('later', { notBefore: clock.now() + 5_000 }), req('now', { priority: 5 })]);
      expect(await f.stats()).toMatchObject({ pending: 2, delayed: 1 });
      expect(paths(await lease(f))).toEqual(['now']);
      clock.advance(4_999);
      expect(await lease(f)).toEqual([]);
      await f.enqueue([req('now2', { priority: 5 })]);
      clock.advance(1);
      expect(await f.stats()).toMatchObject({ pending: 2, delayed: 0 });
      expect(paths(await lease(f))).toEqual(['later', 'now2']);
    });

    it('treats a notBefore in the past as ready now', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a', { notBefore: clock.now() - 1_000 })]);
      expect(await f.stats()).toMatchObject({ pending: 1, delayed: 0 });
      expect(paths(await lease(f))).toEqual(['a']);
    });
  });

  describe('maxPending', () => {
    it('drops new requests when full and counts them', async () => {
      const { f } = await setup({ maxPending: 2 });
      expect(await f.enqueue([req('a'), req('b'), req('c'), req('a')])).toEqual({
        added: 2,
        duplicates: 1,
        dropped: 1,
      });
      expect((await f.stats()).pending).toBe(2);
    });

    it('does not mark a dropped URL as seen, so it can be enqueued once there is room', async () => {
      const { f } = await setup({ maxPending: 2 });
      await f.enqueue([req('a'), req('b'), req('c')]);
      await leaseOne(f); // leased tasks are not pending: frees one slot
      expect(await f.enqueue([req('c')])).toEqual({ added: 1, duplicates: 0, dropped: 0 });
      expect(paths(await lease(f))).toEqual(['b', 'c']);
    });

    it('never drops forced requests', async () => {
      const { f } = await setup({ maxPending: 1 });
      await f.enqueue([req('a')]);
      expect(await f.enqueue([req('seed', { force: true }), req('b')])).toEqual({
        added: 1,
        duplicates: 0,
        dropped: 1,
      });
      expect((await f.stats()).pending).toBe(2);
    });
  });

  describe('force', () => {
    it('leaves a pending task alone', async () => {
      const { f } = await setup();
      await f.enqueue([req('a', { priority: 3 })]);
      expect(await f.enqueue([req('a', { force: true, priority: 0 })])).toEqual({
        added: 0,
        duplicates: 1,
        dropped: 0,
      });
      expect(await lease(f)).toMatchObject([{ priority: 3, generation: 0 }]);
    });

    it('leaves a leased task alone and its lease valid', async () => {
      const { f } = await setup();
      await f.enqueue([req('a')]);
      const task = await leaseOne(f);
      expect(await f.enqueue([req('a', { force: true })])).toMatchObject({ added: 0, duplicates: 1 });
      expect(await lease(f)).toEqual([]);
      expect(await f.ack(task)).toBe(true);
    });

    it('re-enqueues a done task: same id, generation + 1, attempts 0', async () => {
      const { f } = await setup();
      await f.enqueue([req('a')]);
      const first = await leaseOne(f);
      await f.retry(first, { at: 0, reason: 'boom', chargeAttempt: true });
      const second = await leaseOne(f);
      expect(second.attempts).toBe(1);
      await f.ack(second);
      expect(await f.enqueue([req('a', { force: true })])).toEqual({ added: 1, duplicates: 0, dropped: 0 });
      expect(await f.stats()).toMatchObject({ pending: 1, done: 0 });
      expect(await leaseOne(f)).toMatchObject({ id: first.id, generation: 1, attempts: 0 });
    });

    it('re-enqueues a dead task at its notBefore and removes it from the dead letters', async () => {
      const { f, clock } = await setup();
      await f.enqueue([req('a')]);
      await f.deadLetter(await leaseOne(f), 'http_404');
      const at = clock.now() + 1_000;
      expect(await f.enqueue([req('a', { force: true, notBefore: at })])).toMatchObject({ added: 1 });
      expect(await f.listDead()).toEqual([]);
      expect(await f.stats()).toMatchObject({ pending: 1, delayed: 1, dead: 0 });
      expect(await lease(f)).toEqual([]);
      clock.advance(1_000);
      expect(await leaseOne(f)).toMatchObject({ generation: 1, attempts: 0 });
    });
  });
}
