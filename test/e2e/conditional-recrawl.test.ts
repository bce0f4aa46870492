/**
 * `crawld run` as a user runs it (no HTTP server), recrawling the demo site: the recrawl
 * asks with the stored validators, the unchanged pages come back 304 and are recorded as
 * unchanged with their previous fields, and the changed ones as 200 with change records.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startDemoSite } from '../../src/demo/site.js';
import { closeAfterEach } from '../helpers/cleanup.js';
import { freePort, readJsonl, scrapeMetrics, tempDir, withCli, writeJsonConfig } from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { waitFor } from '../helpers/wait.js';

describe('crawld run: conditional recrawls', () => {
  const track = closeAfterEach();

  it('records 304s as unchanged and only the changed pages as 200s', async () => {
    const pages = 40;
    const site = await startDemoSite({ pages, changeRate: 0.25 }).then(track);
    const dir = tempDir();
    const config = writeJsonConfig(
      dir,
      {
        fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
        politeness: { minDelayMs: 0 },
        jobs: [
          {
            id: 'shop',
            seeds: [`${site.url}/`],
            recrawlIntervalMs: 3000, // well after the first cycle ends, even on a loaded machine
            extract: { fields: { price: { selector: 'span.price', type: 'number' } } },
          },
        ],
      },
      'crawld.yaml',
    );
    // With an HTTP port: on this branch `run` exits once its only pending work is a delayed
    // recrawl (its timers are unref'd), and /metrics is checked too.
    const port = await freePort();
    const results = join(dir, 'data', 'results.jsonl');
    const metrics = await withCli(
      ['run', '--config', config, '--no-progress', '--http-port', String(port)],
      async () => {
        await waitFor(() => readJsonl(results).filter((r) => r.generation === 0).length === pages, {
          what: 'every page of generation 0',
          deadlineMs: 30_000,
        });
        // The next cycle: a quarter of the pages (deterministically) change.
        site.setPriceEpoch(1);
        await waitFor(() => readJsonl(results).filter((r) => r.generation === 1).length === pages, {
          what: 'every page of generation 1',
          deadlineMs: 30_000,
        });
        // A record is written before its 304 is counted: wait for the count, not for time.
        const notModified = readJsonl(results).filter((r) => r.generation === 1 && r.status === 304).length;
        return waitFor(
          async () => {
            const text = await scrapeMetrics(port);
            return metricSum(text, 'crawld_unchanged_pages_total') >= notModified ? text : undefined;
          },
          { what: `crawld_unchanged_pages_total at ${notModified}`, deadlineMs: 30_000 },
        );
      },
    );
    const recs = readJsonl(results);
    const first = new Map(recs.filter((r) => r.generation === 0).map((r) => [r.url, r]));
    const second = recs.filter((r) => r.generation === 1);
    const unchanged = second.filter((r) => r.status === 304);
    const changed = second.filter((r) => r.status === 200);
    expect(unchanged.length + changed.length).toBe(pages);
    // 25 % of 40 change, give or take the hash's luck; both kinds are there.
    expect(changed.length).toBeGreaterThan(2);
    expect(changed.length).toBeLessThan(pages / 2);
    for (const r of unchanged) {
      expect(r.unchanged).toBe(true);
      expect(r.bytes).toBe(0);
      expect(r.fields).toEqual(first.get(r.url)?.fields);
    }
    for (const r of changed) expect(r.fields).not.toEqual(first.get(r.url)?.fields);
    // The site answered exactly those 304s and sent bodies only for the first cycle and the changes.
    expect(site.stats().notModified).toBeGreaterThanOrEqual(unchanged.length);
    expect(metricSum(metrics, 'crawld_unchanged_pages_total')).toBeGreaterThanOrEqual(unchanged.length);
    expect(metricSum(metrics, 'crawld_unchanged_bytes_saved_total')).toBeGreaterThan(
      unchanged.length * 10_000,
    );
    const changes = readJsonl(join(dir, 'data', 'changes.jsonl')).filter((c) => c.generation === 1);
    expect(new Set(changes.map((c) => c.url))).toEqual(new Set(changed.map((r) => r.url)));
  });
});
