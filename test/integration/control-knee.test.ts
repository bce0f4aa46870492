import { afterEach, describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { startDaemon, type TestDaemon, waitUntil } from './control-helpers.js';

let site: DemoSite | undefined;
let crawler: TestDaemon | undefined;
afterEach(async () => {
  await crawler?.stop();
  await site?.close();
  crawler = undefined;
  site = undefined;
});

describe('adaptive concurrency against a real server with a capacity knee', () => {
  it('grows from its initial limit and settles near the knee K', async () => {
    const K = 16;
    site = await startDemoSite({ pages: 3000, latencyMs: 20, capacity: K });
    const host = new URL(site.url).host;
    const initial = 4;
    crawler = await startDaemon(
      {
        concurrency: {
          initialPerHost: initial,
          maxPerHost: 64,
          // Short windows so the limit moves ~10 times a second: at 20 ms per request even a
          // limit of 4 yields 10 samples in 50 ms, so each 100 ms window carries a verdict.
          windowMs: 100,
          minWindowSamples: 10,
        },
        jobs: [{ id: 'knee', seeds: [`${site.url}/`] }],
      },
      { once: false },
    );
    // The limit every 50 ms.
    const trace: number[] = [];
    const sampler = setInterval(() => trace.push(crawler!.daemon.control.hostLimit(host)), 50);
    const show = () => `limit every 50 ms: ${trace.join(' ')}`;
    let reachedAt: number;
    try {
      // Generous timeouts: a CPU-starved CI runner crawls slowly and the limit grows slowly.
      await waitUntil('the limit to grow to K/2', () => Math.max(0, ...trace) >= 0.5 * K, 10_000).catch(
        (err: Error) => {
          throw new Error(`${err.message}; ${show()}`);
        },
      );
      reachedAt = trace.length;
      // Then watch it for 3 s more: it must hold near K, not run away past it.
      await waitUntil('3 s more of samples', () => trace.length >= reachedAt + 60, 10_000);
    } finally {
      clearInterval(sampler);
    }
    const after = trace.slice(reachedAt);
    const mean = after.reduce((a, b) => a + b, 0) / after.length;
    expect(Math.max(...trace), show()).toBeGreaterThan(initial);
    expect(mean, show()).toBeGreaterThanOrEqual(0.5 * K);
    expect(mean, show()).toBeLessThanOrEqual(2 * K);
    // It found the knee by latency, never by overloading the server into errors.
    expect(crawler.events.fetchError).toHaveLength(0);
    expect(site.stats().errors).toBe(0);
  });
});
