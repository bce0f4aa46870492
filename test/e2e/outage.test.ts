import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countLines, runCli, tempDir } from '../helpers/cli.js';
import { type FaultSite, startFaultSite } from '../helpers/fault-site.js';

const PAGES = 600;
const START_MS = 1000;
const OUTAGE_MS = 2500;

/**
 * A healthy host goes down mid-crawl (500s, or connection resets) for 2.5 s, then recovers.
 * `crawl --once` without --http-port, crawld's breaker defaults: the consecutive-failure
 * trip stops the requests within a handful, the short first open time probes soon after
 * recovery, and every page is written with no task dead-lettered.
 */
describe.each(['5xx', 'reset'] as const)('outage (%s)', (kind) => {
  let site: FaultSite | undefined;
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  it('costs few requests, recovers in seconds, loses nothing', async () => {
    let first: number | undefined;
    const inOutage = (atMs: number) =>
      first !== undefined && atMs >= first + START_MS && atMs < first + START_MS + OUTAGE_MS;
    site = await startFaultSite({
      pages: PAGES,
      latencyMs: 20,
      fault: (r) => {
        first ??= r.atMs;
        if (!inOutage(r.atMs)) return 'ok';
        return kind === 'reset' ? 'reset' : { status: 500 };
      },
    });
    const dir = tempDir('crawld-outage-');
    const configFile = join(dir, 'crawld.yaml');
    writeFileSync(
      configFile,
      [
        `dataDir: ${join(dir, 'data')}`,
        'fetch: { allowPrivateNetworks: true }',
        'concurrency: { maxPerHost: 16 }',
      ].join('\n'),
    );
    const res = await runCli(['crawl', `${site.origin}/`, '--once', '--config', configFile], {}, 90_000);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toMatch(new RegExp(`${PAGES} ok, 0 failed`));
    expect(countLines(join(dir, 'data', 'results.jsonl'))).toBe(PAGES);
    expect(res.stderr).toMatch(/circuit breaker state change.*"to":"open"/);

    const from = first! + START_MS;
    const to = from + OUTAGE_MS;
    // The crawl was still going when the outage began (else the test proves nothing).
    expect(site.log.at(-1)!.atMs).toBeGreaterThan(to);
    // At most 16 in flight when it began, 5 to trip, then only probes (open 1 s, 2 s...).
    const during = site.between(from, to);
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThanOrEqual(40);
    // The first request after recovery within 3 s (open 1 s, a failed probe, open 2 s: ~0.5 s).
    const after = site.log.find((r) => r.atMs >= to);
    expect(after!.atMs - to).toBeLessThan(3000);
    expect(site.log.filter((r) => r.answer === 'ok').length).toBe(PAGES);
  });
});
