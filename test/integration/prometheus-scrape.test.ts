import { type ChildProcess, spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDashboards, renderDashboard } from '../../src/dashboards/build.js';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { type CliProcess, freePort, startCli, tempDir } from '../helpers/cli.js';
import { LISTENING, requireBinary, run } from '../helpers/prom-tools.js';
import {
  loadAlertRules,
  loadRecordingRules,
  ROOT,
  selectors,
  substituteVariables,
  targetsOf,
} from '../helpers/promql.js';
import { waitFor } from '../helpers/wait.js';

/**
 * A real Prometheus scrapes a real daemon, then every PromQL expression we ship is run
 * against it, so a renamed metric or label breaks the build instead of a dashboard.
 *
 * - Dashboard targets: the expression, with Grafana's variables replaced by what "All"
 *   means ($job/$instance/$host → `.*`, $__rate_interval → 1m), must be valid and return at
 *   least one series.
 * - Alert rules: a healthy crawl rightly makes most alert expressions empty, so the whole
 *   expression must be valid, and every vector selector it reads (`metric{matchers}`, found
 *   lexically) must return series. Prometheus also evaluates the rule file itself (health ok).
 *
 * The scenario makes every metric appear: the demo site answers 20% of requests with 500
 * (retries, dead letters, a breaker tuned to open: deferrals), its prices change every 2 s
 * and pages are recrawled every second (changes), a required field is missing (extraction
 * errors), a token bucket throttles the host (rate-limit waits), and a second job's seeds
 * point at a closed port (fetch errors throughout). Every query must return series and,
 * since known label values exist at 0 from the start, at least one non-zero value. It uses `crawld run` with a config file rather than
 * `crawld demo` because the demo command has no flags for rate limits and breaker tuning.
 */

const DEADLINE_MS = 30_000;

interface PromResult {
  status: string;
  error?: string;
  data?: { result: unknown[] };
}

let site: DemoSite | undefined;
let daemon: CliProcess | undefined;
let prometheus: ChildProcess | undefined;
let promLog = '';
let promUrl = '';
let metricsUrl = '';
const dirs: string[] = [];

let withData = 0;

function hasNonZero(r: PromResult): boolean {
  return ((r.data?.result ?? []) as { value?: [number, string] }[]).some((s) => {
    const v = Number(s.value?.[1]);
    return Number.isFinite(v) && v !== 0;
  });
}

async function promQuery(expr: string): Promise<PromResult> {
  const res = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  return (await res.json()) as PromResult;
}

/**
 * Runs check over every item, each second, until all pass (the crawl needs time to exercise
 * every series); returns the last failures, which are the test's to show, once DEADLINE_MS has
 * passed.
 */
async function failuresAfterWaiting<T>(
  what: string,
  items: T[],
  check: (item: T) => Promise<string | null>,
): Promise<string[]> {
  // An item passes once it has passed in any round: a gauge such as the requests in flight is
  // 0 at some scrapes on a loaded machine, and every panel at once need not show data at once.
  let left = items;
  let failures: string[] = [];
  await waitFor(
    async () => {
      const results = await Promise.all(left.map(check));
      left = left.filter((_, i) => results[i] !== null);
      failures = results.filter((f): f is string => f !== null);
      return left.length === 0;
    },
    { what, deadlineMs: DEADLINE_MS, every: 1000 },
  ).catch(() => undefined);
  return failures;
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  requireBinary('prometheus');
  site = await startDemoSite({
    pages: 300,
    // Slow enough that requests are in flight (and tasks leased) at every scrape.
    latencyMs: 100,
    errorRate: 0.2,
    priceEpoch: () => Math.floor(Date.now() / 2000),
  });
  const closedPort = await freePort();
  const dataDir = tempDir('crawld-scrape-');
  dirs.push(dataDir);
  const config = {
    dataDir,
    log: { level: 'info' },
    fetch: { allowAddresses: [`127.0.0.1:${site.port}`, `127.0.0.1:${closedPort}`] },
    // Low enough that the bucket throttles however slowly a loaded machine crawls (at 60/s a
    // machine at load 8 never reached it and the rate-limit panels stayed at zero).
    rateLimits: { hosts: [{ hosts: '*', ratePerSec: 10, burst: 1 }] },
    // Open times capped at 2 s: the demo host's 20 % errors trip it now and then, and an open
    // time grown to a minute (the default cap) left nothing in flight when the queries ran.
    breaker: {
      errorThresholdPercentage: 10,
      volumeThreshold: 5,
      resetTimeoutMs: 1000,
      maxResetTimeoutMs: 2000,
    },
    retry: { maxAttempts: 2, baseDelayMs: 50, maxDelayMs: 200 },
    // A WARC archive beside the results, small files so that some close during the test (the
    // Archives panels).
    sinks: [{ kind: 'jsonl' }, { kind: 'warc', dir: join(dataDir, 'warc'), maxFileBytes: 65_536 }],
    jobs: [
      {
        id: 'demo',
        seeds: [`${site.url}/`],
        robots: false,
        recrawlIntervalMs: 1000,
        extract: {
          fields: {
            price: { selector: 'span.price' },
            missing: { selector: '#no-such-element', required: true },
          },
        },
      },
      // A closed port: connection errors for the whole run, as the tuned breaker lets one
      // probe through per resetTimeoutMs and defers the rest without charging attempts.
      {
        id: 'unreachable',
        seeds: Array.from({ length: 200 }, (_, i) => `http://127.0.0.1:${closedPort}/p${i}`),
        robots: false,
      },
    ],
  };
  const configFile = join(dataDir, 'crawld.json');
  writeFileSync(configFile, JSON.stringify(config));
  daemon = startCli(['run', '--config', configFile, '--http-port', '0']);
  const target = new URL((await daemon.waitFor(LISTENING))[1] ?? '').host;
  metricsUrl = `http://${target}/metrics`;

  const promDir = tempDir('crawld-prometheus-');
  dirs.push(promDir);
  const promConfig = join(promDir, 'prometheus.yml');
  // JSON is YAML. The job is named crawld because the alerts select job="crawld".
  writeFileSync(
    promConfig,
    JSON.stringify({
      global: { scrape_interval: '1s', evaluation_interval: '1s' },
      rule_files: [resolve(ROOT, 'prometheus/alerts.yml')],
      scrape_configs: [{ job_name: 'crawld', static_configs: [{ targets: [target] }] }],
    }),
  );
  const port = await freePort();
  promUrl = `http://127.0.0.1:${port}`;
  prometheus = spawn(
    'prometheus',
    [
      `--config.file=${promConfig}`,
      `--storage.tsdb.path=${join(promDir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prometheus.stdout?.on('data', (d: Buffer) => (promLog += d.toString()));
  prometheus.stderr?.on('data', (d: Buffer) => (promLog += d.toString()));

  // A few successful scrapes, so that rate() over the substituted 1m window has points.
  await waitFor(
    async () => {
      const r = await promQuery('sum(count_over_time(up{job="crawld"}[1m]))');
      const scrapes = Number(
        (r.data?.result[0] as { value?: [number, string] } | undefined)?.value?.[1] ?? 0,
      );
      return scrapes >= 5;
    },
    { what: 'five scrapes of the daemon by Prometheus', every: 500 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}:\n${promLog}`);
  });
}, 45_000);

afterAll(async () => {
  await stop(prometheus);
  if (daemon) await stop(daemon.child);
  await site?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}, 20_000);

describe('Prometheus scraping a running daemon', () => {
  it('scrapes the target successfully', async () => {
    const r = await promQuery('up{job="crawld"}');
    const result = (r.data?.result ?? []) as { value: [number, string] }[];
    expect(result).toHaveLength(1);
    expect(result[0]?.value[1]).toBe('1');
  });

  it('answers every dashboard query with series', async () => {
    const targets = Object.values(buildDashboards()).flatMap((d) =>
      targetsOf(JSON.parse(renderDashboard(d)) as Record<string, unknown>),
    );
    expect(targets.length).toBeGreaterThan(20);
    const failures = await failuresAfterWaiting('series in every dashboard query', targets, async (t) => {
      const expr = substituteVariables(String(t.expr));
      const r = await promQuery(expr);
      if (r.status !== 'success')
        return `${t.dashboard} / ${t.panel} / ${String(t.refId)}: ${r.error}: ${expr}`;
      if ((r.data?.result.length ?? 0) === 0)
        return `${t.dashboard} / ${t.panel} / ${String(t.refId)}: no series: ${expr}`;
      // Series at 0 exist from the first scrape (known label values): the crawl must also
      // have exercised what the panel shows, so one value is non-zero.
      if (!hasNonZero(r)) return `${t.dashboard} / ${t.panel} / ${String(t.refId)}: only zeros: ${expr}`;
      return null;
    });
    withData = targets.length - failures.length;
    console.log(`dashboard queries with data: ${withData} of ${targets.length}`);
    expect(failures, failures.join('\n')).toEqual([]);
  }, 60_000);

  it('evaluates every alert expression, and every selector it reads has series', async () => {
    const checks = loadAlertRules().flatMap((rule) => [
      { rule: rule.alert, expr: rule.expr, needSeries: false },
      ...selectors(rule.expr).map((s) => ({ rule: rule.alert, expr: s, needSeries: true })),
    ]);
    expect(checks.filter((c) => c.needSeries).length).toBeGreaterThanOrEqual(loadAlertRules().length);
    const failures = await failuresAfterWaiting('every alert expression and selector', checks, async (c) => {
      const r = await promQuery(c.expr);
      if (r.status !== 'success') return `${c.rule}: ${r.error}: ${c.expr}`;
      if (c.needSeries && (r.data?.result.length ?? 0) === 0) return `${c.rule}: no series for ${c.expr}`;
      return null;
    });
    expect(failures, failures.join('\n')).toEqual([]);
  }, 45_000);

  it('exposes crawld_ metrics that promtool check metrics finds nothing wrong with, after the crawl exercised them', async () => {
    requireBinary('promtool');
    const body = await (await fetch(metricsUrl)).text();
    // Every event-driven family is in use by now (errors, retries, waits, changes).
    for (const m of ['crawld_fetch_errors_total', 'crawld_retries_total', 'crawld_changes_total'])
      expect(body, m).toMatch(new RegExp(`^${m}\\{[^}]*\\} [1-9]`, 'm'));
    const r = run('promtool', ['check', 'metrics'], ROOT, body);
    const problems = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.startsWith('crawld_'));
    expect(r.error).toBeUndefined();
    expect(problems).toEqual([]);
  });

  it('loads the bundled rule file and evaluates every rule without error', async () => {
    const res = await fetch(`${promUrl}/api/v1/rules`);
    const body = (await res.json()) as {
      data: { groups: { rules: { name: string; health: string; lastError?: string }[] }[] };
    };
    const rules = body.data.groups.flatMap((g) => g.rules);
    // Alerts and recording rules alike (the burn-rate alerts read the recorded ratios).
    expect(rules.map((r) => r.name).sort()).toEqual(
      [...loadAlertRules().map((r) => r.alert), ...loadRecordingRules().map((r) => r.record)].sort(),
    );
    for (const r of rules) expect([r.name, r.health, r.lastError ?? '']).toEqual([r.name, 'ok', '']);
  });
});
