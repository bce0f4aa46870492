import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigInput } from '../../src/config/config.js';
import { html, type Site, startEngine, startSite, turns } from '../helpers/engine.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The scheduler on a FakeClock with a real in-memory frontier, control plane and task runner
 * (requests travel to node:http servers on 127.0.0.1): what it starts, what it holds back, and
 * that whatever waits is woken by one armed timer, never by polling.
 */
const sites: Site[] = [];
let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
afterEach(async () => {
  await engine?.close();
  for (const s of sites.splice(0)) await s.close();
  engine = undefined;
});

async function site(pages: number): Promise<Site> {
  const routes: Parameters<typeof startSite>[0] = {};
  for (let i = 0; i < pages; i++) routes[`/p${i}`] = html(`<h1>${i}</h1>`);
  const s = await startSite(routes);
  sites.push(s);
  return s;
}

async function engineFor(s: Site, input: ConfigInput = {}) {
  engine = await startEngine({ jobs: [{ id: 'j', seeds: [`${s.origin}/p0`], robots: false }], ...input });
  return engine;
}

/** A site whose /hang never answers, with pages /p0 .. /p(pages-1). */
async function hangingSite(pages: number): Promise<Site> {
  const s = await startSite({
    '/hang': () => {},
    ...Object.fromEntries(Array.from({ length: pages }, (_, i) => [`/p${i}`, html('x')])),
  });
  sites.push(s);
  return s;
}

/** An engine with one global slot, and /hang queued first (it takes the slot), then `others` other hosts' pages. */
async function oneSlotEngine(s: Site, others: number) {
  const e = await engineFor(s, {
    concurrency: { global: 1 },
    jobs: [{ id: 'j', seeds: [`${s.origin}/hang`], robots: false, scope: { hosts: ['*'] } }],
  });
  await e.frontier.enqueue([
    { url: `${s.origin}/hang`, jobId: 'j' },
    ...Array.from({ length: others }, (_, i) => ({ url: `http://h${i}.test:${s.port}/p${i}`, jobId: 'j' })),
  ]);
  return e;
}

/** Stops a scheduler whose request hangs: the drain time passes on the fake clock. */
async function stopHanging(
  scheduler: { stop(ms: number): Promise<unknown> },
  e: { clock: { advance(ms: number): void } },
) {
  const stopping = scheduler.stop(1000);
  await turns();
  e.clock.advance(1000);
  await stopping;
}

describe('Scheduler', () => {
  it('holds a rate-limited host until the clock reaches its next token, with one timer armed', async () => {
    const s = await site(3);
    const e = await engineFor(s, { rateLimits: { hosts: [{ hosts: '*', ratePerSec: 1, burst: 1 }] } });
    await e.frontier.enqueue([0, 1, 2].map((i) => ({ url: `${s.origin}/p${i}`, jobId: 'j' })));
    const scheduler = e.scheduler();
    const done = scheduler.run();
    let finished = false;
    void done.then(() => {
      finished = true;
    });
    for (let n = 1; n <= 3; n++) {
      await waitFor(() => scheduler.counters.ok === n, { what: `page ${n}`, every: 'turn' });
      if (n === 3) break;
      await waitFor(() => scheduler.inflightCount === 0 && e.clock.pendingTimers() === 1, {
        what: 'the wake timer',
        every: 'turn',
      });
      await turns();
      // Frozen time: nothing else starts, however long the loop spins.
      expect(s.hits).toHaveLength(n);
      expect(e.clock.pendingTimers()).toBe(1);
      e.clock.advance(999);
      await turns();
      expect(s.hits).toHaveLength(n);
      e.clock.advance(1);
    }
    await waitFor(() => finished, { what: 'run() to resolve in once mode', every: 'turn' });
    expect(s.hits.sort()).toEqual(['/p0', '/p1', '/p2']);
    expect(scheduler.state).toBe('stopped');
    expect(e.clock.pendingTimers()).toBe(0);
  });

  it('sleeps until a delayed task is due, then runs it and ends', async () => {
    const s = await site(1);
    const e = await engineFor(s);
    await e.frontier.enqueue([{ url: `${s.origin}/p0`, jobId: 'j', notBefore: e.clock.now() + 30_000 }]);
    const scheduler = e.scheduler();
    let finished = false;
    void scheduler.run().then(() => {
      finished = true;
    });
    await waitFor(() => e.clock.pendingTimers() === 1, { what: 'the wake timer', every: 'turn' });
    await turns();
    expect(s.hits).toEqual([]);
    expect(finished).toBe(false);
    e.clock.advance(29_999);
    await turns();
    expect(s.hits).toEqual([]);
    e.clock.advance(1);
    await waitFor(() => finished, { what: 'run() to resolve', every: 'turn' });
    expect(s.hits).toEqual(['/p0']);
    expect(scheduler.counters.ok).toBe(1);
  });

  it('keeps one host waiting without holding back another', async () => {
    const slowSite = await site(3);
    const fastSite = await site(5);
    // Two hosts by name (the test lookup resolves both to 127.0.0.1): rate limits are per host name.
    const slow = `http://slow.test:${slowSite.port}`;
    const fast = `http://fast.test:${fastSite.port}`;
    const e = await engineFor(slowSite, {
      rateLimits: { hosts: [{ hosts: 'slow.test', ratePerSec: 0.01, burst: 1 }] },
      jobs: [{ id: 'j', seeds: [`${slow}/p0`], robots: false, scope: { hosts: ['*'] } }],
    });
    await e.frontier.enqueue([
      ...[0, 1, 2].map((i) => ({ url: `${slow}/p${i}`, jobId: 'j' })),
      ...[0, 1, 2, 3, 4].map((i) => ({ url: `${fast}/p${i}`, jobId: 'j' })),
    ]);
    const scheduler = e.scheduler({ once: false });
    void scheduler.run();
    await waitFor(() => fastSite.hits.length === 5 && scheduler.counters.ok === 6, {
      what: 'the fast host and one slow page',
      every: 'turn',
    });
    await turns();
    expect(slowSite.hits).toHaveLength(1);
    expect(scheduler.bufferedCount).toBe(2);
    e.clock.advance(100_000);
    await waitFor(() => slowSite.hits.length === 2, {
      what: 'the next slow page at its token',
      every: 'turn',
    });
    await scheduler.stop(1000);
  });

  it('asks a waiting host again only when its wait ends, however often the loop pumps', async () => {
    const slowSite = await site(2);
    const fastSite = await site(8);
    const slow = `http://slow.test:${slowSite.port}`;
    const fast = `http://fast.test:${fastSite.port}`;
    const e = await engineFor(slowSite, {
      rateLimits: { hosts: [{ hosts: 'slow.test', ratePerSec: 0.01, burst: 1 }] },
      jobs: [{ id: 'j', seeds: [`${slow}/p0`], robots: false, scope: { hosts: ['*'] } }],
    });
    const asked = new Map<string, number>();
    const admit = e.control.admit.bind(e.control);
    e.control.admit = (host) => {
      asked.set(host, (asked.get(host) ?? 0) + 1);
      return admit(host);
    };
    await e.frontier.enqueue([
      ...[0, 1].map((i) => ({ url: `${slow}/p${i}`, jobId: 'j' })),
      ...[0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({ url: `${fast}/p${i}`, jobId: 'j' })),
    ]);
    const scheduler = e.scheduler({ once: false });
    void scheduler.run();
    await waitFor(() => fastSite.hits.length === 8 && scheduler.counters.ok === 9, {
      what: 'the fast host',
      every: 'turn',
    });
    // Eight fast pages ended, each with a pump; the slow host was asked twice: its first page
    // went, its second was told to wait 100 s (a broad crawl has thousands of hosts so).
    expect(asked.get(`slow.test:${slowSite.port}`)).toBe(2);
    e.clock.advance(100_000);
    await waitFor(() => slowSite.hits.length === 2, {
      what: 'the second slow page at its token',
      every: 'turn',
    });
    expect(asked.get(`slow.test:${slowSite.port}`)).toBe(3);
    await scheduler.stop(1000);
  });

  it('buffers one task of a host that waits, leaving the room to other hosts', async () => {
    const s = await site(4);
    const slow = `http://slow.test:${s.port}`;
    const e = await engineFor(s, {
      rateLimits: { hosts: [{ hosts: 'slow.test', ratePerSec: 0.01, burst: 1 }] },
      jobs: [{ id: 'j', seeds: [`${slow}/p0`], robots: false, scope: { hosts: ['*'] } }],
    });
    await e.frontier.enqueue([0, 1].map((i) => ({ url: `${slow}/p${i}`, jobId: 'j' })));
    const scheduler = e.scheduler({ once: false });
    void scheduler.run();
    await waitFor(() => scheduler.counters.ok === 1 && scheduler.bufferedCount === 1, {
      what: 'p0, and p1 waiting',
      every: 'turn',
    });
    await turns();
    // More of its work arrives: it stays in the frontier while the host waits (a second task
    // would sit out the whole wait in the buffer).
    await e.frontier.enqueue([2, 3].map((i) => ({ url: `${slow}/p${i}`, jobId: 'j' })));
    scheduler.kick(true);
    await turns();
    expect(scheduler.bufferedCount).toBe(1);
    expect((await e.frontier.stats()).pending).toBe(2);
    await scheduler.stop(1000);
  });

  it('buffers the next task of every host in its politeness gap, beyond bufferSize up to maxWaitingHosts', async () => {
    const s = await site(2);
    const hosts = [0, 1, 2, 3, 4, 5].map((i) => `http://h${i}.test:${s.port}`);
    for (const [maxWaitingHosts, buffered] of [
      [undefined, 6],
      [3, 5],
    ] as const) {
      const e = await engineFor(s, {
        politeness: { minDelayMs: 500 },
        jobs: [{ id: 'j', seeds: [`${hosts[0]}/p0`], robots: false, scope: { hosts: ['*'] } }],
      });
      // Every host's first page, then every host's second (FIFO: the first pages go first).
      await e.frontier.enqueue([0, 1].flatMap((p) => hosts.map((h) => ({ url: `${h}/p${p}`, jobId: 'j' }))));
      const scheduler = e.scheduler({
        once: false,
        bufferSize: 2,
        ...(maxWaitingHosts ? { maxWaitingHosts } : {}),
      });
      void scheduler.run();
      await waitFor(() => scheduler.counters.ok === 6, { what: 'every host’s first page', every: 'turn' });
      await turns();
      // Frozen clock: six hosts in their 500 ms gap. bufferSize (2) alone held two hosts' next
      // pages and left the others' in the frontier, to be leased when a slot freed.
      expect(scheduler.bufferedCount).toBe(buffered);
      expect((await e.frontier.stats()).pending).toBe(6 - buffered);
      e.clock.advance(500);
      await waitFor(() => scheduler.counters.ok === 12, {
        what: 'every host’s second page when its gap ends',
        every: 'turn',
      });
      await scheduler.stop(1000);
      await e.close();
    }
    engine = undefined;
  });

  it('asks each of many hosts in its politeness gap once, and again when its own gap ends', async () => {
    const s = await site(2);
    const hosts = Array.from({ length: 8 }, (_, i) => `h${i}.test:${s.port}`);
    const e = await engineFor(s, {
      politeness: { minDelayMs: 500 },
      jobs: [{ id: 'j', seeds: [`http://${hosts[0]}/p0`], robots: false, scope: { hosts: ['*'] } }],
    });
    const asked = new Map<string, number>();
    const admit = e.control.admit.bind(e.control);
    e.control.admit = (host) => {
      asked.set(host, (asked.get(host) ?? 0) + 1);
      return admit(host);
    };
    // The first half of the hosts' first pages, then (200 ms later) the other half's.
    const early = hosts.slice(0, 4);
    const late = hosts.slice(4);
    await e.frontier.enqueue(
      [0, 1].flatMap((p) => early.map((h) => ({ url: `http://${h}/p${p}`, jobId: 'j' }))),
    );
    const scheduler = e.scheduler({ once: false });
    void scheduler.run();
    await waitFor(() => scheduler.counters.ok === 4, { what: 'the early hosts’ first pages', every: 'turn' });
    e.clock.advance(200);
    await e.frontier.enqueue(
      [0, 1].flatMap((p) => late.map((h) => ({ url: `http://${h}/p${p}`, jobId: 'j' }))),
    );
    scheduler.kick(true);
    await waitFor(() => scheduler.counters.ok === 8, { what: 'the late hosts’ first pages', every: 'turn' });
    await turns();
    // Each host: its first page went, its second was told to wait; the pumps of the late hosts'
    // pages did not ask the early hosts again.
    for (const h of hosts) expect(asked.get(h)).toBe(2);
    e.clock.advance(300);
    await waitFor(() => scheduler.counters.ok === 12, {
      what: 'the early hosts’ second pages',
      every: 'turn',
    });
    await turns();
    for (const h of early) expect(asked.get(h)).toBe(3);
    for (const h of late) expect(asked.get(h)).toBe(2);
    e.clock.advance(200);
    await waitFor(() => scheduler.counters.ok === 16, {
      what: 'the late hosts’ second pages',
      every: 'turn',
    });
    for (const h of late) expect(asked.get(h)).toBe(3);
    await scheduler.stop(1000);
  });

  it('asks no host while the global ceiling is reached', async () => {
    // One hanging request fills the ceiling; three other hosts' tasks wait in the buffers.
    const s = await hangingSite(3);
    const e = await oneSlotEngine(s, 3);
    let asked = 0;
    const admit = e.control.admit.bind(e.control);
    e.control.admit = (host) => {
      asked++;
      return admit(host);
    };
    const scheduler = e.scheduler({ once: false });
    void scheduler.run();
    await waitFor(() => s.hits.length === 1 && scheduler.bufferedCount === 3, {
      what: 'the hanging request',
      every: 'turn',
    });
    const before = asked;
    for (let i = 0; i < 5; i++) {
      scheduler.kick(true);
      await turns();
    }
    expect(asked).toBe(before);
    await stopHanging(scheduler, e);
  });

  it('leases again only when the buffers have room for minLeaseBatch tasks, or are empty', async () => {
    const s = await hangingSite(6);
    for (const [minLeaseBatch, pendingAfter] of [
      [3, 3],
      [1, 2],
    ] as const) {
      // The hanging request holds the only global slot; three other hosts' tasks fill the
      // buffers to one short of bufferSize, and three more stay in the frontier.
      const e = await oneSlotEngine(s, 6);
      let leases = 0;
      const lease = e.frontier.lease.bind(e.frontier);
      e.frontier.lease = (o) => {
        leases++;
        return lease(o);
      };
      const scheduler = e.scheduler({ once: false, bufferSize: 4, minLeaseBatch });
      void scheduler.run();
      await waitFor(() => s.hits.length === 1 && scheduler.bufferedCount === 3, {
        what: 'the hanging request',
        every: 'turn',
      });
      const before = leases;
      for (let i = 0; i < 5; i++) {
        scheduler.kick(true);
        await turns();
      }
      // Room for one task: a batch of 3 waits for more room; a batch of 1 leases it.
      expect((await e.frontier.stats()).pending).toBe(pendingAfter);
      if (minLeaseBatch === 3) expect(leases).toBe(before);
      await stopHanging(scheduler, e);
      await e.close();
    }
    engine = undefined;
  });

  it('leases into empty buffers whatever minLeaseBatch asks', async () => {
    const s = await site(6);
    const e = await engineFor(s);
    await e.frontier.enqueue([0, 1, 2, 3, 4, 5].map((i) => ({ url: `${s.origin}/p${i}`, jobId: 'j' })));
    const scheduler = e.scheduler({ bufferSize: 4, minLeaseBatch: 10 });
    await scheduler.run();
    expect(scheduler.counters.ok).toBe(6);
    expect(s.hits.sort()).toEqual(['/p0', '/p1', '/p2', '/p3', '/p4', '/p5']);
  });

  it('keeps the lease of a request that runs past it: no other owner leases the task meanwhile', async () => {
    const s = await hangingSite(0);
    const e = await engineFor(s, { jobs: [{ id: 'j', seeds: [`${s.origin}/hang`], robots: false }] });
    await e.frontier.enqueue([{ url: `${s.origin}/hang`, jobId: 'j' }]);
    const scheduler = e.scheduler({ once: false, leaseMs: 10_000 });
    void scheduler.run();
    await waitFor(() => s.hits.length === 1, { what: 'the hanging request', every: 'turn' });
    const other = () => e.frontier.lease({ max: 1, leaseMs: 10_000, owner: 'other' });
    // Six leases long: the lease keeper extends it while it runs.
    for (let i = 0; i < 24; i++) {
      e.clock.advance(2_500);
      await turns();
      expect(await other()).toEqual([]);
    }
    // Aborted by the drain and handed back uncharged: its token was still good.
    await stopHanging(scheduler, e);
    expect(await other()).toMatchObject([{ url: `${s.origin}/hang`, attempts: 0 }]);
    expect(e.clock.pendingTimers()).toBe(0);
  });

  for (const leaseMs of [3_000, 120_000]) {
    it(`takes back a dead owner's lease within idlePollMs of its expiry (leaseMs ${leaseMs})`, async () => {
      const s = await site(1);
      const e = await engineFor(s);
      await e.frontier.enqueue([{ url: `${s.origin}/p0`, jobId: 'j' }]);
      // Another daemon leased it and died: nothing acks or extends it.
      await e.frontier.lease({ max: 1, leaseMs, owner: 'dead' });
      const leasedAt = e.clock.now();
      const scheduler = e.scheduler({ leaseMs, idlePollMs: 500 });
      const done = scheduler.run();
      let startedAt: number | undefined;
      while (startedAt === undefined) {
        e.clock.advance(100);
        await turns(5);
        if (scheduler.inflightCount + scheduler.counters.ok > 0) startedAt = e.clock.now();
      }
      expect(startedAt - leasedAt).toBeGreaterThanOrEqual(leaseMs);
      expect(startedAt - leasedAt).toBeLessThanOrEqual(leaseMs + 500 + 100);
      await done;
      expect(scheduler.counters.ok).toBe(1);
    });
  }

  it('stop() waits the drain time by the clock, then aborts and hands the task back uncharged', async () => {
    const s = await startSite({ '/hang': () => {} });
    sites.push(s);
    const e = await engineFor(s);
    await e.frontier.enqueue([{ url: `${s.origin}/hang`, jobId: 'j' }]);
    const scheduler = e.scheduler({ once: false });
    void scheduler.run();
    await waitFor(() => s.hits.length === 1, { what: 'the request', every: 'turn' });
    let stopped: { aborted: number } | undefined;
    void scheduler.stop(5_000).then((r) => {
      stopped = r;
    });
    await turns();
    e.clock.advance(4_999);
    await turns();
    expect(stopped).toBeUndefined();
    e.clock.advance(1);
    await waitFor(() => stopped !== undefined, { what: 'stop() after the drain time', every: 'turn' });
    expect(stopped).toEqual({ aborted: 1 });
    expect(scheduler.state).toBe('stopped');
    const [back] = await e.frontier.lease({ max: 1, leaseMs: 1000, owner: 't' });
    expect(back).toMatchObject({ url: `${s.origin}/hang`, attempts: 0 });
  });
});
