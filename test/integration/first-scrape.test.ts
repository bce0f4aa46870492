import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { type CliProcess, startCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { testMetrics } from '../helpers/metric-registry.js';
import { LISTENING } from '../helpers/prom-tools.js';
import { namedMetrics } from '../helpers/promql.js';
import { waitFor } from '../helpers/wait.js';

/**
 * Every metric a dashboard panel or an alert rule names has a sample in the very first
 * scrape, taken while the first page is still being fetched: an absent series is not 0 but
 * nothing, which empties panels and silently disables alerts. The names are read from the
 * shipped files (grafana/dashboards/*.json, prometheus/*.yml), so a new panel cannot escape.
 */

/** Names that have at least one sample line in a text exposition. */
function sampled(exposition: string): Set<string> {
  const out = new Set<string>();
  for (const line of exposition.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)[{ ]/.exec(line);
    if (m?.[1]) out.add(m[1]);
  }
  return out;
}

let site: DemoSite | undefined;
let daemon: CliProcess | undefined;
const dirs: string[] = [];

afterAll(async () => {
  if (daemon && daemon.child.exitCode === null) {
    const exited = new Promise((r) => daemon?.child.once('exit', r));
    daemon.child.kill('SIGTERM');
    await exited;
  }
  await site?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 20_000);

describe('every series from the first scrape', () => {
  it('the shipped dashboards and alerts name the metrics this test checks', () => {
    const names = namedMetrics();
    // A regex that stopped matching would make the real test vacuous.
    expect(names).toContain('crawld_frontier_pending');
    expect(names).toContain('crawld_request_duration_seconds_bucket');
    expect(names.length).toBeGreaterThan(25);
  });

  it('exposes every named metric before the first page ends', async () => {
    // Every response takes 4 s: the first scrape below happens with the first task in flight.
    site = await startDemoSite({ pages: 20, latencyMs: 4000 });
    const dataDir = tempDir('crawld-first-scrape-');
    dirs.push(dataDir);
    const configFile = writeJsonConfig(dataDir, {
      dataDir,
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      jobs: [{ id: 'shop', seeds: [`${site.url}/`], robots: false }],
    });
    daemon = startCli(['run', '--config', configFile, '--http-port', '0']);
    const url = (await daemon.waitFor(LISTENING))[1] ?? '';
    const text = await waitFor(
      async () => {
        const scrape = await (await fetch(`${url}/metrics`)).text();
        return /^crawld_inflight_requests 1$/m.test(scrape) && scrape;
      },
      { what: 'a scrape with the first request in flight', deadlineMs: 15_000 },
    );
    // The first page has not ended: no page counted ok yet.
    expect(text).toMatch(/^crawld_pages_total\{crawl_job="shop",result="ok"\} 0$/m);
    const present = sampled(text);
    const names = namedMetrics();
    const missing = names.filter((n) => !present.has(n));
    expect(missing, `no sample in the first scrape:\n${text}`).toEqual([]);
    // Known label values at 0, per job and per host (the host's first task).
    for (const series of [
      'crawld_pages_total{crawl_job="shop",result="failed"} 0',
      'crawld_changes_total{crawl_job="shop"} 0',
      'crawld_fetch_errors_total{host="other",reason="connection"} 0',
      'crawld_rate_limit_waits_total{host="other",reason="rate_limit"} 0',
      'crawld_deferred_total{reason="breaker_open"} 0',
      'crawld_retries_total{reason="http_503"} 0',
      'crawld_frontier_pending{priority="0"} 0',
      // Hung requests and hedges (docs/control-plane.md, Learned timeouts): counted by phase.
      'crawld_fetch_errors_total{host="other",reason="hung"} 0',
      'crawld_retries_total{reason="hung"} 0',
      'crawld_request_timeouts_total{phase="headers",timeout="learned"} 0',
      'crawld_request_timeouts_total{phase="connect",timeout="learned"} 0',
      'crawld_request_timeouts_total{phase="body",timeout="learned"} 0',
      'crawld_request_timeouts_total{phase="total",timeout="configured"} 0',
      'crawld_hedged_requests_total{result="won"} 0',
      'crawld_hedged_requests_total{result="lost"} 0',
      // Nothing learned yet: the configured timeout (fetch.headersTimeoutMs, 15 s).
      'crawld_host_timeout_seconds{host="other",phase="headers"} 15',
    ])
      expect(text).toContain(series);
    console.log(
      `first scrape: ${names.length} named metrics, all present; ${countSamples(text, 'crawld_')} crawld_ samples`,
    );
  }, 40_000);
});

function countSamples(text: string, prefix: string): number {
  return text.split('\n').filter((l) => l.startsWith(prefix)).length;
}

describe('gauges never vanish', () => {
  it('crawld_frontier_pending is 0, not absent, for a known priority when the frontier is empty', async () => {
    let byPriority: Record<string, number> = { '5': 3 };
    const { registry } = testMetrics({ jobs: ['a'], priorities: [10] }, () => byPriority);
    const busy = await registry.getSingleMetricAsString('crawld_frontier_pending');
    expect(busy).toContain('crawld_frontier_pending{priority="5"} 3');
    expect(busy).toContain('crawld_frontier_pending{priority="10"} 0');
    byPriority = {};
    const empty = await registry.getSingleMetricAsString('crawld_frontier_pending');
    expect(empty).toContain('crawld_frontier_pending{priority="10"} 0');
    expect(empty).toContain('crawld_frontier_pending{priority="5"} 0');
  });
});
