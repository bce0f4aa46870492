import { describe, expect, it } from 'vitest';
import { startDemoSite } from '../../src/demo/site.js';
import { closeAfterEach } from '../helpers/cleanup.js';
import { startDaemon } from '../helpers/control.js';
import { waitFor } from '../helpers/wait.js';

const track = closeAfterEach();

describe('adaptive concurrency against a real server with a capacity knee', () => {
  // Where the limit settles (near K, ~1.15 K) is a figure of bench/knee.mjs: on a loaded
  // machine the crawler's own queueing is in every latency sample and moves it (seen: a mean
  // of 36 with K = 16). What holds under any load is asserted here.
  it('grows from its initial limit by latency, comes back down from the ceiling, and never overloads the site', async () => {
    // 16 in flight at 50 ms: the site tops out at 320 pages/s, well within what the crawler's
    // CPU can drive on a busy 2-core runner.
    const K = 16;
    const site = await startDemoSite({ pages: 3000, latencyMs: 50, capacity: K }).then(track);
    const host = new URL(site.url).host;
    const initial = 4;
    const max = 64;
    const crawler = await startDaemon(
      {
        concurrency: {
          initialPerHost: initial,
          maxPerHost: max,
          // Short windows so the limit moves several times a second: at 50 ms per request even
          // the probe limit of 3 yields 10 samples in under 200 ms.
          windowMs: 100,
          minWindowSamples: 10,
        },
        jobs: [{ id: 'knee', seeds: [`${site.url}/`] }],
      },
      { once: false },
    ).then(track);
    // The limit every 50 ms.
    const trace: number[] = [];
    const sampler = setInterval(() => trace.push(crawler.daemon.control.hostLimit(host)), 50);
    const show = () => `limit every 50 ms: ${trace.join(' ')}`;
    try {
      await waitFor(() => Math.max(0, ...trace) > initial, 'the limit to grow past its initial value').catch(
        (err: Error) => {
          throw new Error(`${err.message}; ${show()}`);
        },
      );
      // Past the knee the latency rises: the limit does not stay at the ceiling (4 x K).
      await waitFor(() => trace.length > 20 && (trace.at(-1) ?? max) < max, {
        what: 'the limit below maxPerHost once past the knee',
        deadlineMs: 20_000,
      }).catch((err: Error) => {
        throw new Error(`${err.message}; ${show()}`);
      });
    } finally {
      clearInterval(sampler);
    }
    if (process.env.KNEE_TRACE) console.log(show());
    // It found the knee by latency, never by overloading the server into errors.
    expect(crawler.events.fetchError).toHaveLength(0);
    expect(site.stats().errors).toBe(0);
  });
});
