import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countLines, runCli, tempDir } from '../helpers/cli.js';
import { type FaultRequest, type FaultSite, startFaultSite } from '../helpers/fault-site.js';

/**
 * A host that accepts requests and never answers some of them (issue 44), crawled as a user
 * crawls it: `crawl URL --once --allow-private-networks`, no --http-port, crawld's defaults.
 * The host answers in 50 ms with a capacity of 8 (docs/control-plane.md, _Learned timeouts_).
 *
 * What is asserted is behaviour, never a duration: every page is written, each request the
 * host left hanging was given up as hung at its host's learned timeout (a debug log line per
 * hung request, phase headers: one that waited out the configured 15 s would be a
 * headers_timeout instead, and is not counted), retried (the summary's retries) and its page
 * fetched again, and the crawl ends by itself.
 */
const HUNG = /request hung: given up at its host's learned timeout[^\n]*"phase":"headers"/g;

let site: FaultSite | undefined;
afterEach(async () => {
  await site?.close();
  site = undefined;
});

async function crawl(pages: number, fault: (r: FaultRequest) => 'ok' | 'hang') {
  site = await startFaultSite({ pages, latencyMs: 50, capacity: 8, fault });
  const dir = tempDir('crawld-hangs-');
  const res = await runCli(
    [
      'crawl',
      `${site.origin}/`,
      '--once',
      '--allow-private-networks',
      '--data-dir',
      join(dir, 'data'),
      '--log-level',
      'debug',
    ],
    {},
    120_000,
  );
  expect(res.code, res.stderr.slice(-3000)).toBe(0);
  expect(res.stdout).toMatch(new RegExp(`${pages} ok, 0 failed`));
  expect(countLines(join(dir, 'data', 'results.jsonl'))).toBe(pages);
  const hung = site.log.filter((r) => r.answer === 'hang');
  // Every page that hung was asked for again and answered.
  for (const r of hung)
    expect(
      site.log.some((later) => later.path === r.path && later.answer === 'ok' && later.atMs > r.atMs),
    ).toBe(true);
  // An answered request given up all the same (an answer later than the learned timeout, as
  // on a machine too loaded to read it in time) is asked for again too: counted apart.
  const cutShort = site.log.filter(
    (r) => r.answer === 'ok' && site!.log.some((l) => l.path === r.path && l.atMs > r.atMs),
  ).length;
  const retries = Number(/(\d+) retries/.exec(res.stdout)?.[1]);
  const givenUp = res.stderr.match(HUNG)?.length ?? 0;
  // Each request given up as hung was retried once, and each the host left hanging was given up
  // as hung (one that waited out the configured timeout would be missing from givenUp).
  expect(retries).toBe(givenUp);
  expect(givenUp).toBe(hung.length + cutShort);
  return { stderr: res.stderr, hung, cutShort };
}

describe('hung requests, crawl --once as a user runs it', () => {
  it('a tail (the first request of every 20th page never answered): each given up as hung and retried, every page written', async () => {
    const { hung } = await crawl(800, (r) =>
      r.nth === 1 && /^\/p\/\d*[02468]0$/.test(r.path) ? 'hang' : 'ok',
    );
    // /p/20, /p/40 ... /p/780.
    expect(hung.length).toBe(39);
  }, 150_000);

  it('an outage (every request hangs for 2.5 s mid-crawl): given up as hung, the breaker probes, every page written', async () => {
    let first: number | undefined;
    const { stderr, hung } = await crawl(1000, (r) => {
      first ??= r.atMs;
      return r.atMs >= first + 1500 && r.atMs < first + 4000 ? 'hang' : 'ok';
    });
    expect(hung.length).toBeGreaterThan(0);
    // Five in a row trip the breaker, as five 500s do; it was probed and closed again.
    expect(stderr).toMatch(/circuit breaker state change[^\n]*"to":"open"/);
    expect(stderr).toMatch(/"from":"halfOpen"[^\n]*circuit breaker state change[^\n]*"to":"closed"/);
    // The requests in flight when it began (each holds its slot until given up: no more go out
    // meanwhile), five until the breaker tripped, then probes: not the window after window that
    // a hang of 15 s per request let through. Relative to the host's limit as the outage began,
    // which a loaded machine moves (40 or fewer hung on a quiet machine, 56 at load 14).
    const before = site!.log.filter((r) => r.atMs < first! + 1500).slice(-200);
    const limit = Math.max(...before.map((r) => r.inflight));
    expect(hung.length, `hung ${hung.length}, in flight before ${limit}`).toBeLessThanOrEqual(limit + 15);
  }, 150_000);
});
