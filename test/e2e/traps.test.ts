import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrapSite, type TrapSite } from '../../src/demo/trap-site.js';
import {
  freePort,
  readJsonl,
  runCli,
  scrapeMetrics,
  tempDir,
  withCli,
  writeJsonConfig,
} from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/** `crawld crawl URL --once` as a new user runs it: no config, no HTTP server. */
function crawlOnce(url: string, dataDir: string, extra: string[] = []) {
  return runCli(
    ['crawl', url, '--once', '--allow-private-networks', '--no-progress', '--data-dir', dataDir, ...extra],
    {},
    120_000,
  );
}

/** The real pages a crawl recorded, by the path the trap site counts them under. */
function recordedReal(dataDir: string, site: TrapSite): Set<string> {
  const real = new Set(site.realPaths());
  const out = new Set<string>();
  for (const r of readJsonl(join(dataDir, 'results.jsonl'))) {
    const u = new URL(String(r.url));
    const path = u.pathname.replace(/;jsessionid=[^/]*/i, '');
    const counted = path === '/products' ? `${path}${u.search}` : path;
    if (real.has(counted) && r.trap === undefined) out.add(counted);
  }
  return out;
}

function metric(text: string, name: string, label: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${label}}`));
  return line === undefined ? Number.NaN : Number(line.split(' ').pop());
}

// Each test runs whole crawls as child processes (up to runCli's 120 s on a loaded machine).
describe('traps (issue 43): session ids, calendars, relative paths, facets and soft 404s (whole CLI)', {
  timeout: 120_000,
}, () => {
  let site: TrapSite;
  beforeAll(async () => {
    site = await startTrapSite();
  });
  afterAll(() => site.close());

  it('crawl --once with no config: every real page, an end by itself, at most one wasted request per real page', async () => {
    const dataDir = tempDir();
    const run = await crawlOnce(site.url, dataDir);
    expect(run.code, run.stderr).toBe(0);
    const stats = site.stats();
    // Counted by the server: every real page was served, and the rest is the price of the traps.
    expect(stats.realServed).toBe(stats.realPages);
    expect(stats.requests - stats.realServed, JSON.stringify(stats.byKind)).toBeLessThanOrEqual(
      stats.realPages,
    );
    expect([...recordedReal(dataDir, site)].sort()).toEqual(site.realPaths().sort());
    // The summary sums what the rules kept out, by reason.
    const line = /crawld: traps skipped: ([\d,]+) \((.*)\)/.exec(run.stdout);
    expect(line, run.stdout).not.toBeNull();
    for (const reason of ['session id', 'session-like parameter', 'near-duplicate series', 'soft 404'])
      expect(line?.[2]).toContain(reason);
    const records = readJsonl(join(dataDir, 'results.jsonl'));
    expect(records.some((r) => r.trap === 'soft_404')).toBe(true);
    expect(records.some((r) => r.trap === 'repeated_path')).toBe(true);
    // No session id leaks into a key; the wire URL kept it as the site wrote it.
    expect(records.every((r) => !/sid=|jsessionid/i.test(String(r.key)))).toBe(true);
    expect(records.some((r) => /;jsessionid=/.test(String(r.url)))).toBe(true);
  });

  it('a restart keeps what the hosts taught: a faceted or session-like seed is a page already crawled', async () => {
    const dataDir = tempDir();
    expect((await crawlOnce(site.url, dataDir)).code).toBe(0);
    const before = site.stats().requests;
    // Seeds that only differ from crawled pages in parameters the host taught (two facets of
    // the shop, the visit id of the footer).
    const again = await crawlOnce(`${site.url}shop?color=purple&size=xxl`, dataDir, [
      `${site.url}about?visit=never-seen-before`,
    ]);
    expect(again.code, again.stderr).toBe(0);
    // robots.txt is fetched again by the new process, nothing else.
    expect(site.stats().requests - before).toBeLessThanOrEqual(1);
    expect(again.stdout).toMatch(/ 0 ok, 0 failed, 2 skipped/);
    expect(again.stdout).toMatch(/traps skipped: .*session-like parameter/);
  });

  it('is a trap site: with traps: false (and a depth of 4 to end) it costs many times its real pages', async () => {
    const dir = tempDir('crawld-traps-off-');
    const cfg = writeJsonConfig(dir, {
      fetch: { allowPrivateNetworks: true },
      jobs: [{ id: 'off', seeds: [site.url], traps: false, scope: { maxDepth: 4 } }],
    });
    const before = site.stats().requests;
    const run = await runCli(['run', '--config', cfg, '--once', '--no-progress'], {}, 120_000);
    expect(run.code, run.stderr).toBe(0);
    expect(site.stats().requests - before).toBeGreaterThan(3 * site.stats().realPages);
    expect(run.stdout).not.toContain('traps skipped');
  });

  it('the counts reach /metrics from the first scrape, then by reason', async () => {
    const port = await freePort();
    const dataDir = tempDir();
    await withCli(
      [
        'crawl',
        site.url,
        '--allow-private-networks',
        '--data-dir',
        dataDir,
        '--http-port',
        String(port),
        '--no-progress',
      ],
      async () => {
        // The first scrape the daemon answers (for ~0.1 s every path says 503 starting).
        const first = await waitFor(
          () =>
            scrapeMetrics(port).then(
              (t) => (t.includes('# TYPE') ? t : undefined),
              () => undefined,
            ),
          { what: 'a first scrape' },
        );
        for (const reason of [
          'session_id',
          'session_like',
          'repeated_path',
          'long_path',
          'near_duplicate_series',
          'soft_404',
        ])
          expect(
            metric(first, 'crawld_trap_urls_total', `reason="${reason}"`),
            reason,
          ).toBeGreaterThanOrEqual(0);
        const done = await waitFor(
          async () => {
            const text = await scrapeMetrics(port);
            return metric(text, 'crawld_trap_urls_total', 'reason="soft_404"') > 0 &&
              metric(text, 'crawld_trap_rules_learned_total', 'kind="pattern"') > 0
              ? text
              : undefined;
          },
          { what: 'trap counts on /metrics', deadlineMs: 60_000 },
        );
        expect(metric(done, 'crawld_trap_urls_total', 'reason="session_id"')).toBeGreaterThan(0);
        expect(metric(done, 'crawld_trap_rules_learned_total', 'kind="param"')).toBeGreaterThan(0);
        expect(metric(done, 'crawld_trap_rules_learned_total', 'kind="soft_404"')).toBeGreaterThan(0);
        const status = (await (await fetch(`http://127.0.0.1:${port}/api/status`)).json()) as {
          traps: { total: number; shown: { host: string; reasons: Record<string, number> }[] };
        };
        expect(status.traps.total).toBeGreaterThan(0);
        expect(status.traps.shown[0]?.host).toBe(new URL(site.url).host);
      },
    );
  });
});

describe('a 40-page listing and no traps (whole CLI)', () => {
  let site: TrapSite;
  beforeAll(async () => {
    site = await startTrapSite({ traps: false, products: 400 });
  });
  afterAll(() => site.close());

  it('crawl --once with no config finds every product, the last at depth 41', async () => {
    const dataDir = tempDir();
    const run = await crawlOnce(site.url, dataDir);
    expect(run.code, run.stderr).toBe(0);
    expect(site.stats().realServed).toBe(site.stats().realPages);
    const records = readJsonl(join(dataDir, 'results.jsonl'));
    expect(Math.max(...records.map((r) => Number(r.depth)))).toBe(41);
    expect(records.every((r) => r.trap === undefined)).toBe(true);
  });
});
