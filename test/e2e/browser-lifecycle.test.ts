/**
 * The browser's life under a running daemon, with real Chromium: killed mid-crawl (the tasks
 * rendering in it are retried in a new one, 0 lost) and SIGTERM during renders (the daemon
 * drains, closes the browser and exits 0; a rerun finishes the crawl).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { closeAfterEach } from '../helpers/cleanup.js';
import {
  countLines,
  freePort,
  listDeadLetters,
  readJsonl,
  runOnce,
  scrapeMetrics,
  startCli,
  tempDir,
  writeJsonConfig,
} from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { alive, browserFetch, browserPid, chromiumPids } from '../helpers/js-site.js';
import { waitFor } from '../helpers/wait.js';

function writeConfig(dir: string, site: DemoSite, extra: Record<string, unknown> = {}): string {
  return writeJsonConfig(dir, {
    fetch: browserFetch(site.port, { maxPages: 3 }),
    jobs: [
      {
        id: 'shop',
        seeds: [`${site.url}/`],
        render: { kind: 'browser', waitForSelector: 'span.price' },
        extract: { fields: { price: { selector: 'span.price' } } },
      },
    ],
    ...extra,
  });
}

/** The dead letters of the daemon whose config writeConfig wrote into dir. */
const dlq = (dir: string) => listDeadLetters(['--data-dir', join(dir, 'data')]);

describe('browser lifecycle under the daemon', () => {
  const track = closeAfterEach();

  it('a browser killed mid-crawl is restarted and no task is lost', async () => {
    // 15 pages, 3 tabs: a dozen left to render, and renders in flight, when the browser dies.
    const pages = 15;
    // Each product's JSON takes 300 ms: renders are in flight when the browser dies.
    const site = await startDemoSite({ js: true, pages, latencyMs: 300 }).then(track);
    const dir = tempDir();
    const port = await freePort();
    const config = writeConfig(dir, site, { http: { port } });
    const daemon = startCli(['run', '--config', config, '--once', '--no-progress']);
    const results = join(dir, 'data', 'results.jsonl');
    let metrics = '';
    try {
      await waitFor(() => countLines(results) >= 3, { what: '3 pages', deadlineMs: 60_000 });
      const pid = browserPid(daemon.child.pid ?? -1);
      expect(pid).toBeDefined();
      process.kill(pid as number, 'SIGKILL');
      metrics = await waitFor(
        async () => {
          const m = await scrapeMetrics(port);
          return metricSum(m, 'crawld_browser_restarts_total', { reason: 'crash' }) >= 1 && m;
        },
        { what: 'a browser restart after the crash in /metrics', deadlineMs: 30_000 },
      );
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill('SIGKILL');
    }
    const urls = new Set(readJsonl(results).map((r) => r.url));
    const dead = await dlq(dir);
    expect(dead).toEqual([]);
    expect(urls.size).toBe(pages);
    expect(metricSum(metrics, 'crawld_browser_crashes_total')).toBeGreaterThanOrEqual(1);
    expect(metricSum(metrics, 'crawld_render_duration_seconds_count')).toBeGreaterThanOrEqual(3);
  }, 150_000);

  it('SIGTERM during renders drains, closes the browser and exits 0; a rerun finishes', async () => {
    // 8 pages, 3 tabs: renders in flight at the SIGTERM and pages left for the rerun (each
    // page costs the rerun 4.5 s: its document, script and JSON each wait out the latency).
    const pages = 8;
    // 1.5 s per product JSON: SIGTERM finds renders waiting for their data.
    const site = await startDemoSite({ js: true, pages, latencyMs: 1500 }).then(track);
    const dir = tempDir();
    const config = writeConfig(dir, site, { shutdown: { drainTimeoutMs: 1000 } });
    const daemon = startCli(['run', '--config', config, '--no-progress']);
    const results = join(dir, 'data', 'results.jsonl');
    let browsers: number[] = [];
    try {
      await waitFor(() => countLines(results) >= 1, { what: 'the first page', deadlineMs: 60_000 });
      browsers = chromiumPids(daemon.child.pid ?? -1);
      expect(browsers.length).toBeGreaterThan(0);
      daemon.child.kill('SIGTERM');
      // Drain (1 s) and closing the browser, not a hang (that would reach the test's timeout).
      expect(await daemon.exited).toBe(0);
    } finally {
      daemon.child.kill('SIGKILL');
    }
    expect(daemon.stdout()).toMatch(/"aborted":[1-9].*"message":"shutdown: drained"/);
    await waitFor(() => browsers.every((pid) => !alive(pid)), {
      what: 'every browser process gone',
      deadlineMs: 10_000,
    });
    const again = await runOnce(config, 120_000);
    expect(again.code, again.stdout).toBe(0);
    const records = readJsonl(results);
    expect(new Set(records.map((r) => r.url)).size).toBe(pages);
    for (const r of records) expect((r.fields as { price?: string }).price).toMatch(/^\$[0-9,]+\.\d\d$/);
    expect(await dlq(dir)).toEqual([]);
  }, 180_000);
});
