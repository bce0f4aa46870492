import { describe, expect, it } from 'vitest';
import { DueQueue } from '../../src/engine/scheduler/due-queue.js';
import { HostHolds } from '../../src/engine/scheduler/host-holds.js';
import { HostQueues } from '../../src/engine/scheduler/host-queues.js';
import type { Task } from '../../src/ports/frontier.js';

/** Times are plain numbers (the scheduler passes its clock's now): no timer runs here. */
describe('DueQueue', () => {
  it('pops the keys due by now in time order, and only those', () => {
    const q = new DueQueue<string>();
    for (const [k, at] of [
      ['c', 30],
      ['a', 10],
      ['e', 50],
      ['b', 20],
      ['d', 40],
    ] as const)
      q.set(k, at);
    expect(q.nextAt()).toBe(10);
    expect(q.popDue(9)).toEqual([]);
    expect(q.popDue(30)).toEqual(['a', 'b', 'c']);
    expect(q.size).toBe(2);
    expect(q.nextAt()).toBe(40);
    expect(q.popDue(1000)).toEqual(['d', 'e']);
    expect(q.nextAt()).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps a key once, at its latest time, and forgets a deleted one', () => {
    const q = new DueQueue<string>();
    q.set('a', 10);
    q.set('b', 15);
    q.set('a', 20);
    q.set('c', 5);
    q.delete('c');
    expect(q.dueAt('a')).toBe(20);
    expect(q.nextAt()).toBe(15);
    expect(q.popDue(100)).toEqual(['b', 'a']);
    expect(q.size).toBe(0);
  });

  it('orders thousands of keys as a sort would', () => {
    const q = new DueQueue<number>();
    const at = Array.from({ length: 5000 }, (_, i) => (i * 7919) % 5003);
    for (const [k, t] of at.entries()) q.set(k, t);
    const popped = q.popDue(Number.POSITIVE_INFINITY);
    expect(popped.map((k) => at[k])).toEqual([...at].sort((x, y) => x - y));
  });
});

describe('HostHolds waits', () => {
  it('reports a wait once per period, and ends the waits that are over at expire', () => {
    const h = new HostHolds();
    expect(h.wait('a', 0, 500)).toBe(true);
    expect(h.wait('a', 100, 500)).toBe(false);
    expect(h.wait('b', 100, 500)).toBe(true);
    expect(h.waitingUntil('a', 499)).toBe(500);
    expect(h.nextWaitEndsIn(200)).toBe(300);
    expect(h.expire(499)).toEqual([]);
    expect(h.expire(550)).toEqual(['a']);
    expect(h.waitingCount).toBe(1);
    expect(h.waitingUntil('a', 550)).toBeUndefined();
    expect(h.wait('a', 550, 500)).toBe(true);
    expect(h.expire(2000)).toEqual(['b', 'a']);
    expect(h.nextWaitEndsIn(2000)).toBe(Number.POSITIVE_INFINITY);
  });
});

const task = (host: string, n: number) =>
  ({ host, url: `http://${host}/${n}`, jobId: 'j' }) as unknown as Task;

describe('HostQueues parking', () => {
  it('leaves a parked host out of the round but counts and keeps its tasks', () => {
    const q = new HostQueues();
    q.push(task('a', 1));
    q.push(task('b', 1));
    q.push(task('c', 1));
    q.park('b');
    q.push(task('b', 2));
    expect(q.readyHosts()).toEqual(['a', 'c']);
    expect([...q.parkedHosts()]).toEqual(['b']);
    expect(q.hosts().sort()).toEqual(['a', 'b', 'c']);
    expect(q.size).toBe(4);
    expect(q.hostSize('b')).toBe(2);
    expect(q.peek('b')?.url).toBe('http://b/1');
    q.unpark('b');
    expect(q.readyHosts()).toEqual(['a', 'c', 'b']);
  });

  it('takes a parked host tasks with take, takeLast and takeAll', () => {
    const q = new HostQueues();
    for (const n of [1, 2, 3]) q.push(task('a', n));
    q.push(task('b', 1));
    q.park('a');
    expect(q.takeLast('a', 1).map((t) => t.url)).toEqual(['http://a/3']);
    expect(q.shift('a')?.url).toBe('http://a/1');
    expect(q.readyHosts()).toEqual(['b']);
    expect(q.takeAll().map((t) => t.url)).toEqual(['http://b/1', 'http://a/2']);
    expect(q.size).toBe(0);
    expect(q.hosts()).toEqual([]);
  });
});
