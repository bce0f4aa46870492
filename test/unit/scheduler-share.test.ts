import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { createControlPlane } from '../../src/daemon/control-factory.js';
import { Scheduler, type SchedulerOptions } from '../../src/engine/scheduler/scheduler.js';
import { WORK_SHARE } from '../../src/engine/scheduler/work-share.js';
import { type Site, startEngine, startSite, turns } from '../helpers/engine.js';
import { waitFor } from '../helpers/wait.js';
import { HungerBoard } from '../helpers/work-sharing.js';

/**
 * Two schedulers on one frontier, on the fake clock (engine/scheduler/work-share.ts): the first holds
 * everything left (in flight and buffered) when the second starts; the second finds nothing,
 * says it is hungry, and the first hands back what it holds beyond its short look-ahead.
 */
const sites: Site[] = [];
let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
afterEach(async () => {
  await engine?.close();
  for (const s of sites.splice(0)) await s.close();
  engine = undefined;
});

/** A site that holds every answer until release(), then answers at once. */
async function heldSite() {
  const held: ServerResponse[] = [];
  let open = false;
  const answer = (res: ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>x</body></html>');
  const s = await startSite((_req, res) => (open ? answer(res) : held.push(res)));
  sites.push(s);
  return {
    site: s,
    held,
    release() {
      open = true;
      for (const res of held.splice(0)) answer(res);
    },
  };
}

const fixed = (n: number) => ({
  global: n,
  globalAdaptive: false,
  maxPerHost: n,
  initialPerHost: n,
  adaptive: false,
});

describe('work sharing between schedulers', () => {
  it('a scheduler that finds nothing gets part of what another holds, each page fetched once', async () => {
    const { site, held, release } = await heldSite();
    const e = await startEngine({
      concurrency: fixed(32),
      jobs: [{ id: 'j', seeds: [`${site.origin}/p0`], robots: false }],
    });
    engine = e;
    const PAGES = 64;
    await e.frontier.enqueue(
      Array.from({ length: PAGES }, (_, i) => ({ url: `${site.origin}/p${i}`, jobId: 'j' })),
    );
    const board = new HungerBoard();
    const shared: Partial<SchedulerOptions> = { bufferSize: 256, perHostBuffer: 512, idlePollMs: 500 };
    const first = e.scheduler({ ...shared, owner: 'first', workSharing: board.port('first') });
    const firstDone = first.run();
    // 32 in flight (held by the site), then 32 buffered (the starts of the last second): all 64.
    await waitFor(() => held.length === 32, { what: 'the first 32 requests', every: 'turn' });
    first.kick();
    await waitFor(() => first.bufferedCount === 32, { what: 'the first to buffer the rest', every: 'turn' });
    expect((await e.frontier.stats()).pending).toBe(0);

    // The late one: its own control plane (8 slots), the same frontier and runner.
    const config = { ...e.config, concurrency: { ...e.config.concurrency, ...fixed(8) } };
    const { control } = createControlPlane(config, e.clock, () => 0.5);
    const late = new Scheduler(e.frontier, control, e.runner, e.clock, e.events, {
      owner: 'late',
      leaseMs: e.config.frontier.leaseMs,
      bufferSize: 64,
      perHostBuffer: 16,
      once: true,
      workSharing: board.port('late'),
      idlePollMs: 500,
    });
    const lateDone = late.run();
    await waitFor(() => board.until('late') !== undefined, {
      what: 'the late one to say it is hungry',
      every: 'turn',
    });
    expect(late.inflightCount + late.bufferedCount).toBe(0);

    // Within a check and a hungry poll: the first hands back, the late one leases.
    let waited = 0;
    while (late.inflightCount === 0 && waited < 10 * WORK_SHARE.checkMs) {
      e.clock.advance(WORK_SHARE.hungryPollMs);
      waited += WORK_SHARE.hungryPollMs;
      await turns();
    }
    expect(waited).toBeLessThanOrEqual(WORK_SHARE.checkMs + WORK_SHARE.hungryPollMs);
    // The first kept its short look-ahead (minTasks: it started 32 in the last second).
    expect(first.bufferedCount).toBe(16);
    expect(first.counters.deferred).toBe(16);
    await waitFor(() => late.inflightCount === 8, { what: 'the late one to start its 8', every: 'turn' });
    expect(late.bufferedCount).toBe(8);

    release();
    await waitFor(() => first.counters.ok + late.counters.ok === PAGES, {
      what: 'every page',
      every: 'turn',
    });
    // Both end at their next look (an idle scheduler polls a shared frontier on the clock).
    let ended = false;
    void Promise.all([firstDone, lateDone]).then(() => {
      ended = true;
    });
    for (let i = 0; i < 20 && !ended; i++) {
      e.clock.advance(WORK_SHARE.hungryPollMs);
      await turns();
    }
    expect(ended).toBe(true);
    expect(first.counters.ok + late.counters.ok).toBe(PAGES);
    expect(late.counters.ok).toBe(16);
    // Every page once: a handed-back task was never fetched by the one that gave it.
    expect(new Set(site.hits).size).toBe(PAGES);
    expect(site.hits).toHaveLength(PAGES);
  });
});
