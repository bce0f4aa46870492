import { describe, expect, it } from 'vitest';
import { StoredTrapMemory } from '../../../src/adapters/shared-map/shared-trap-memory.js';
import { VolatileMapStore } from '../../../src/adapters/shared-map/volatile-map-store.js';
import { FakeClock } from '../../../src/core/clock.js';
import { type CrawlEvents, TypedEmitter } from '../../../src/core/events.js';
import { TRAP_DEFAULTS, TRAPS_OFF, type TrapOptions } from '../../../src/core/traps/trap-options.js';
import { normaliseUrl } from '../../../src/core/url.js';
import { TrapGuard } from '../../../src/engine/job/trap-guard.js';
import type { FetchResponse } from '../../../src/ports/fetcher.js';
import type { Task } from '../../../src/ports/frontier.js';

async function guard(options: TrapOptions = TRAP_DEFAULTS) {
  const events = new TypedEmitter<CrawlEvents>();
  const counted: CrawlEvents['trap'][] = [];
  events.on('trap', (e) => counted.push(e));
  const clock = new FakeClock(0);
  const memory = new StoredTrapMemory({
    jobId: 'j',
    store: new VolatileMapStore(),
    options,
    now: () => clock.now(),
  });
  await memory.open();
  return { g: new TrapGuard({ jobId: 'j', options, memory, events }), counted, memory };
}

function task(url: string, depth = 1): Task {
  const key = normaliseUrl(url);
  return {
    id: '1',
    url: key,
    ...(key !== url ? { requestUrl: url } : {}),
    host: new URL(url).host,
    jobId: 'j',
    priority: 10,
    depth,
    attempts: 0,
    generation: 0,
    leaseToken: 't',
    leaseExpiresAt: 0,
  };
}

function res(url: string, body: string): FetchResponse {
  return {
    url,
    status: 200,
    headers: {},
    contentType: 'text/html',
    body: Buffer.from(body),
    wireBytes: body.length,
    ttfbMs: 1,
    totalMs: 1,
    queuedMs: 0,
  } as FetchResponse;
}

describe('the trap guard on links and tasks', () => {
  it('refuses repeated runs and overlong paths, and takes the limits from the options', async () => {
    const { g } = await guard();
    expect(g.linkVerdict('http://h.test/docs/docs/docs/')).toBe('repeated_path');
    expect(g.linkVerdict('http://h.test/a/b/a/b/a/b/x?q=1')).toBe('repeated_path');
    expect(g.linkVerdict('http://h.test/docs/docs/')).toBeUndefined();
    expect(
      g.linkVerdict(`http://h.test/${'s/'.repeat(1)}${Array.from({ length: 33 }, (_, i) => i).join('/')}`),
    ).toBe('long_path');
    expect(
      g.linkVerdict(`http://h.test/${Array.from({ length: 32 }, (_, i) => i).join('/')}/`),
    ).toBeUndefined();
    expect(g.linkVerdict('http://h.test/')).toBeUndefined();
    const loose = await guard({ ...TRAP_DEFAULTS, maxSegmentRepeats: 3 });
    expect(loose.g.linkVerdict('http://h.test/docs/docs/docs/')).toBeUndefined();
    const off = await guard({ ...TRAPS_OFF, nearDuplicates: true });
    expect(off.g.linkVerdict('http://h.test/docs/docs/docs/')).toBeUndefined();
  });

  it('re-keys a queued task once its host learned a parameter, and refuses links of a stopped pattern', async () => {
    const { g, counted } = await guard();
    const home = 'http://h.test/';
    g.observe(
      task(home, 0),
      res(
        home,
        '<nav>Home Shop Help Contact About Careers Press Blog</nav><p>Welcome to the shop, browse the catalogue of outdoor goods we sell</p>',
      ),
      'h0',
    );
    const about =
      '<nav>Home Shop Help Contact About Careers Press Blog</nav><p>About us: a family firm since 1999 selling tents</p>';
    for (const v of ['1', '2', '3', '4'])
      g.observe(
        task(`http://h.test/about?visit=${v}`),
        res(`http://h.test/about?visit=${v}`, about),
        `h${v}`,
      );
    const queued = task('http://h.test/about?visit=99');
    expect(queued.url).toBe('http://h.test/about?visit=99');
    expect(g.reKey(queued, g.keyOptions({ stripTracking: true, sortQuery: true }))).toBe(
      'http://h.test/about',
    );
    const day = (d: number) =>
      `<nav>Home Shop Help Contact About Careers Press Blog</nav><h1>Events on ${d} December</h1><p>No events are planned on this day, check back soon for workshops and sales</p>`;
    for (let d = 1; d <= 10; d++)
      g.observe(task(`http://h.test/events/${d}/`, d), res(`http://h.test/events/${d}/`, day(d)), `d${d}`);
    expect(g.linkVerdict('http://h.test/events/30/')).toBe('near_duplicate_series');
    expect(g.inStoppedPattern(task('http://h.test/events/31/'))).toBe(true);
    expect(g.linkVerdict('http://other.test/events/30/')).toBeUndefined();
    expect(counted.some((e) => e.reason === 'near_duplicate_series' && e.host === 'h.test')).toBe(true);
  });

  it('asks for one soft-404 probe once a host has served ten pages, at a better priority than its links', async () => {
    const { g } = await guard();
    const probes = [];
    for (let i = 0; i < 12; i++) {
      const url = `http://h.test/page/${i}`;
      const { probe } = g.observe(
        task(url),
        res(url, `<p>page number ${i} with its own words ${i * 7} ${i * 13}</p>`),
        `p${i}`,
      );
      if (probe !== undefined) probes.push({ i, probe });
    }
    expect(probes.map((p) => p.i)).toEqual([9]);
    expect(probes[0]?.probe.url).toMatch(/^http:\/\/h\.test\/crawld-404-probe-[0-9a-f]{16}$/);
    expect(probes[0]?.probe.priority).toBe(9);
    expect(g.isProbe(task(probes[0]!.probe.url))).toBe(true);
  });
});
