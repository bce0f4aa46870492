import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../helpers/cleanup.js';
import { html, startEngine, startSite } from '../helpers/engine.js';

/**
 * A host's first contact fetches robots.txt under the first page's permit (RFC 9309 asks for no
 * gap between robots.txt and the first page). politeness.minDelayMs is "between two requests
 * to one host": the gap between the first page and the second must not shrink by the time
 * robots.txt took. FakeClock: the robots.txt handler advances it, as a slow robots.txt would.
 */
const track = closeAfterEach();

describe('politeness across robots.txt', () => {
  it('counts the gap to the second page from the first page, not from before robots.txt', async () => {
    const ROBOTS_MS = 400;
    let engine: Awaited<ReturnType<typeof startEngine>> | undefined;
    const site = await startSite({
      '/robots.txt': (_req, res) => {
        engine?.clock.advance(ROBOTS_MS);
        res.writeHead(404).end();
      },
      '/': html('<h1>Home</h1>'),
    }).then(track);
    const e = await startEngine(
      {
        politeness: { minDelayMs: 500 },
        jobs: [{ id: 'j', seeds: [`${site.origin}/`], extract: { fields: { title: { selector: 'h1' } } } }],
      },
      { robots: true },
    ).then(track);
    engine = e;
    await e.frontier.enqueue([{ url: `${site.origin}/`, jobId: 'j' }]);
    const [task] = await e.frontier.lease({ max: 1, leaseMs: 60_000, owner: 't' });
    if (!task) throw new Error('no task ready');
    const admitted = e.clock.now();
    const adm = e.control.admit(task.host);
    if (adm.kind !== 'go') throw new Error(`not admitted: ${adm.kind}`);
    expect(await e.runner.run(task, adm.permit, new AbortController().signal)).toBe('ok');
    // The page went out ROBOTS_MS after the admit; 500 ms after the admit is 100 ms after it.
    e.clock.advance(admitted + 500 - e.clock.now());
    const next = e.control.admit(task.host);
    expect(next).toMatchObject({ kind: 'wait', reason: 'politeness', delayMs: ROBOTS_MS });
    e.clock.advance(ROBOTS_MS);
    expect(e.control.admit(task.host).kind).toBe('go');
  });
});
