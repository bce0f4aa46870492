import { describe, expect, it } from 'vitest';
import { closeAfterEach } from '../helpers/cleanup.js';
import { type Arrival, html, page, pagePaths, startDaemon, startServer } from '../helpers/control.js';
import { waitFor } from '../helpers/wait.js';

const track = closeAfterEach();

/** Arrivals strictly inside (from, to), server clock. */
const between = (arrivals: readonly Arrival[], from: number, to: number) =>
  arrivals.filter((a) => a.at > from && a.at < to);

describe('429 with Retry-After', () => {
  it('pauses the whole host for the Retry-After, retries the throttled pages, ends all ok', async () => {
    const throttled = 3;
    const server = await startServer((path, a) =>
      a.n <= throttled
        ? { status: 429, headers: { 'retry-after': '2' }, body: 'slow down\n' }
        : html(page(path)),
    ).then(track);
    const paths = pagePaths(12);
    const crawler = await startDaemon(
      {
        concurrency: { initialPerHost: 3 },
        retry: { maxAttempts: 3, baseDelayMs: 50, maxDelayMs: 200 },
        jobs: [{ id: 'throttled', seeds: paths.map((p) => server.url + p), robots: false }],
      },
      { once: true },
    ).then(track);
    await waitFor(() => crawler.events.pageDone.length === paths.length, 'every page ok');
    await crawler.done;

    const arrivals = server.arrivals;
    const first429 = arrivals[0]!.at;
    // A request the crawler sent before it read the 429 may still land just after it; then
    // nothing for the Retry-After (the whole host, not only the throttled URLs).
    expect(between(arrivals, first429 + 100, first429 + 1900)).toEqual([]);
    const resumed = arrivals.find((a) => a.at > first429 + 100);
    expect(resumed!.at - first429).toBeGreaterThanOrEqual(1900);

    const retried = crawler.events.retry.filter((r) => r.reason === 'http_429');
    expect(retried.length).toBe(throttled);
    expect(crawler.events.deadLettered).toEqual([]);
    const done = new Set(crawler.events.pageDone.map((p) => new URL(p.url).pathname));
    expect([...done].sort()).toEqual([...paths].sort());
    // Each throttled URL was asked for again, after the pause.
    for (const a of arrivals.slice(0, throttled)) {
      expect(arrivals.some((b) => b.path === a.path && b.at >= first429 + 1900)).toBe(true);
    }
  });
});

describe.each(['policy', 'opossum'] as const)('circuit breaker (%s)', (implementation) => {
  it('opens on a failing host, defers its tasks uncharged, probes, closes, ends all ok', async () => {
    const failForMs = 1500;
    let failing: number | undefined;
    let served500 = 0;
    const server = await startServer((path, a) => {
      failing ??= a.at;
      if (a.at - failing < failForMs) {
        served500++;
        return { status: 500, body: 'down\n' };
      }
      return html(page(path));
    }).then(track);
    const paths = pagePaths(30);
    const crawler = await startDaemon(
      {
        breaker: {
          implementation,
          volumeThreshold: 5,
          errorThresholdPercentage: 50,
          rollingWindowMs: 10_000,
          rollingBuckets: 10,
          // Longer than the outage: the first probe finds the host healthy again.
          resetTimeoutMs: 2500,
        },
        // maxAttempts 3 against ~30 failing requests' worth of work: only the deferral,
        // which charges nothing, lets every page survive the outage.
        retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 200 },
        jobs: [{ id: 'flaky', seeds: paths.map((p) => server.url + p), robots: false }],
      },
      { once: true },
    ).then(track);
    await waitFor(() => crawler.events.pageDone.length === paths.length, 'every page ok');
    await crawler.done;

    const transitions = crawler.logs
      .filter((l) => l.message === 'circuit breaker state change')
      .map((l) => ({ from: l.from, to: l.to, at: l.at }));
    expect(transitions.map((t) => `${t.from}>${t.to}`)).toEqual([
      'closed>open',
      'open>halfOpen',
      'halfOpen>closed',
    ]);
    const [opened, halfOpen] = transitions;
    // While open the host got nothing (100 ms grace for requests already on the wire).
    expect(between(server.arrivals, opened!.at + 100, halfOpen!.at)).toEqual([]);
    // The breaker stopped the hammering after about volumeThreshold failures.
    expect(served500).toBeLessThanOrEqual(12);

    const deferred = crawler.events.deferred.filter((d) => d.reason === 'breaker_open');
    expect(deferred.length).toBeGreaterThan(0);
    expect(crawler.events.deadLettered).toEqual([]);
    // Only the requests that really failed were charged: one attempt each at most.
    expect(Math.max(...crawler.events.retry.map((r) => r.attempt))).toBe(1);
    expect(crawler.events.retry.length).toBe(served500);
    expect(new Set(crawler.events.pageDone.map((p) => p.url)).size).toBe(paths.length);
  });
});
