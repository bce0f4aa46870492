import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, readJsonl, startCli, tempDir } from '../helpers/cli.js';
import {
  type HostileServer,
  MANY_LINKS,
  metricSum,
  OVERLONG_TITLE,
  HOSTILE_ROUTES as R,
  rssBytes,
  startHostileServer,
} from '../helpers/hostile-server.js';
import { LISTENING } from '../helpers/prom-tools.js';
import { pause, waitFor } from '../helpers/wait.js';

const MiB = 1024 * 1024;
const STORM = 5;
const MAX_LINKS = 100;
const MAX_ATTEMPTS = 3;
/** Generous: the daemon runs at 150-200 MiB here; the 100k-link page and the bombs must not add hundreds. */
const RSS_BOUND = 400 * MiB;

/** What each hostile URL must end as: a dead-letter reason, a skip, or a result. */
const DEAD: Record<string, string> = {
  [R.endless]: 'body_too_large',
  [R.huge]: 'body_too_large',
  [R.gzipBomb]: 'decoded_too_large',
  [R.drip]: 'total_timeout',
  [R.stallHeaders]: 'headers_timeout',
  [R.endlessHeaders]: 'headers_too_large',
  [R.reset]: 'connection',
  [R.redirectLoop]: 'redirect_loop',
  [R.lyingLength]: 'connection',
  ...Object.fromEntries(Array.from({ length: STORM }, (_, i) => [`${R.storm}${i}`, 'http_429'])),
};
/**
 * Endings a loaded machine may give instead: the drip's headers can come after the host's
 * learned headers timeout (docs/control-plane.md, _Learned timeouts_), a timeout either way.
 */
const OR_ELSE: Record<string, readonly string[]> = { [R.drip]: ['headers_timeout'] };
/** Retryable reasons: the daemon tries MAX_ATTEMPTS times before dead-lettering. */
const RETRYABLE = new Set(['total_timeout', 'headers_timeout', 'connection', 'http_429']);

/**
 * The whole daemon (the CLI in a child process) against one server that misbehaves in every
 * way: it must stay up, end every task with a stated reason, count it in /metrics, and keep
 * its memory bounded.
 */
describe('hostile servers', () => {
  let server: HostileServer;
  let daemon: CliProcess;
  let api: string;
  let dataDir: string;
  let maxRss = 0;
  let sampler: NodeJS.Timeout;
  const url = (path: string) => `${server.origin}${path}`;

  beforeAll(async () => {
    server = await startHostileServer();
    dataDir = tempDir('crawld-hostile-');
    const config = {
      dataDir,
      log: { level: 'info' },
      fetch: {
        connectTimeoutMs: 1_000,
        headersTimeoutMs: 1_000,
        bodyTimeoutMs: 2_000,
        totalTimeoutMs: 2_500,
        maxBodyBytes: 4 * MiB,
        maxDecodedBytes: 8 * MiB,
        maxRedirects: 5,
        // The configured timeouts are under test here: learned ones (the server's ordinary
        // pages answer at once) would give the drip and the stalled headers up as hung first,
        // or not, by the order the seeds go out in. test/e2e/hangs.test.ts covers those.
        adaptiveTimeout: { enabled: false },
        // Only this one server: private networks stay refused.
        allowAddresses: [`127.0.0.1:${server.port}`],
      },
      retry: { maxAttempts: MAX_ATTEMPTS, baseDelayMs: 20, maxDelayMs: 100 },
      // One host serves every case: keep 429 pauses and the breaker from parking it for long.
      hostBackoff: { initialPauseMs: 20, maxPauseMs: 100 },
      breaker: { volumeThreshold: 100_000, consecutiveFailures: 0 },
      jobs: [
        {
          id: 'hostile',
          robots: false,
          seeds: [
            ...Object.keys(DEAD),
            R.malformed,
            R.badUtf8,
            R.manyLinks,
            R.overlongBody,
            R.nonHtml,
            R.deepNesting,
            R.retryAfter,
          ].map(url),
          scope: { maxLinksPerPage: MAX_LINKS, maxDepth: 1 },
        },
      ],
    };
    const file = join(tempDir('crawld-hostile-config-'), 'config.json');
    writeFileSync(file, JSON.stringify(config));
    daemon = startCli(['run', '--config', file, '--http-port', '0']);
    api = (await daemon.waitFor(LISTENING))[1]!;
    sampler = setInterval(() => {
      if (daemon.child.pid && daemon.child.exitCode === null) {
        rssBytes(daemon.child.pid).then(
          (b) => (maxRss = Math.max(maxRss, b)),
          () => {},
        );
      }
    }, 100);
  });

  afterAll(async () => {
    clearInterval(sampler);
    if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL');
    await server?.close();
  });

  const metrics = async () => (await fetch(`${api}/metrics`)).text();

  it('ends every hostile URL with a reason, counts it, stays up with bounded memory', async () => {
    const deadCount = Object.keys(DEAD).length;
    // Terminal: every dead letter, the skip, and the three pages plus the capped leaves.
    await waitFor(
      async () => {
        const m = await metrics();
        return (
          metricSum(m, 'crawld_pages_total', { result: 'failed' }) === deadCount &&
          metricSum(m, 'crawld_pages_total', { result: 'skipped' }) === 2 &&
          metricSum(m, 'crawld_pages_total', { result: 'ok' }) >= 4 + MAX_LINKS &&
          metricSum(m, 'crawld_frontier_leased') === 0 &&
          metricSum(m, 'crawld_frontier_pending') === 1
        );
      },
      { what: 'every hostile URL ended', deadlineMs: 45_000, every: 200 },
    );
    // Still up and serving.
    expect(daemon.child.exitCode).toBeNull();
    expect((await fetch(`${api}/healthz`)).status).toBe(200);
    expect(daemon.stdout()).not.toMatch(/unexpected error|uncaught|unhandled/i);

    // Dead letters: one per URL with its reason, after MAX_ATTEMPTS tries for retryable ones.
    const dlq = (await (await fetch(`${api}/api/dlq?limit=1000`)).json()) as {
      items: { url: string; reason: string; attempts: number }[];
    };
    const byUrl = new Map(dlq.items.map((d) => [d.url, d]));
    expect(dlq.items).toHaveLength(deadCount);
    for (const [path, reason] of Object.entries(DEAD)) {
      const d = byUrl.get(url(path));
      expect(d, path).toBeDefined();
      expect([reason, ...(OR_ELSE[path] ?? [])], path).toContain(d?.reason);
      // A non-retryable ending is never retried (its error count below is one per URL); an
      // earlier attempt may have timed out on a loaded machine, so attempts are not always 1.
      if (RETRYABLE.has(reason)) expect(d?.attempts, path).toBe(MAX_ATTEMPTS);
      else expect(d?.attempts, path).toBeLessThanOrEqual(MAX_ATTEMPTS);
    }
    // The storm was retried with backoff, not hammered: exactly MAX_ATTEMPTS requests each.
    for (let i = 0; i < STORM; i++) expect(server.hits(`${R.storm}${i}`)).toBe(MAX_ATTEMPTS);

    // Results: malformed HTML, invalid UTF-8 and the 100k-link page are pages like any other.
    const results = readJsonl(join(dataDir, 'results.jsonl'));
    const result = (path: string) => results.filter((r) => r.url === url(path));
    expect(result(R.malformed)).toHaveLength(1);
    expect(result(R.malformed)[0]?.fields).toMatchObject({ title: 'Broken' });
    expect(result(R.badUtf8)).toHaveLength(1);
    expect(result(R.badUtf8)[0]?.fields).toMatchObject({ title: expect.stringMatching(/^caf\uFFFD+$/) });
    expect(result(R.manyLinks)).toHaveLength(1);
    // Body longer than its Content-Length: the declared bytes are the page; the excess (a forged
    // second response) is dropped with the connection and never read as another page's answer.
    expect(result(R.overlongBody)).toHaveLength(1);
    expect(result(R.overlongBody)[0]).toMatchObject({
      fields: { title: OVERLONG_TITLE },
      bytes: `<title>${OVERLONG_TITLE}</title>`.length,
    });
    expect(results.filter((r) => r.bytes === 5)).toEqual([]);
    // Links capped: the first MAX_LINKS leaves were crawled, none past the cap.
    const leaves = results.filter((r) => String(r.url).startsWith(url('/l/')));
    const manyLinkLeaves = leaves.filter((r) => /\/l\/\d+$/.test(String(r.url)));
    expect(manyLinkLeaves).toHaveLength(MAX_LINKS);
    expect(server.hits(`/l/${MAX_LINKS}`)).toBe(0);
    expect(server.hits(`/l/${MANY_LINKS - 1}`)).toBe(0);
    expect(new Set(results.map((r) => r.url)).size).toBe(results.length);
    // Nothing hostile made it into the results.
    for (const path of [...Object.keys(DEAD), R.nonHtml, R.deepNesting, R.retryAfter]) {
      expect(result(path)).toHaveLength(0);
    }

    // Metrics count each ending by reason.
    const m = await metrics();
    // By the reasons the dead letters carry (each checked above against what its URL allows).
    const reasons = dlq.items.reduce<Record<string, number>>((acc, d) => {
      acc[d.reason] = (acc[d.reason] ?? 0) + 1;
      return acc;
    }, {});
    // Retryable endings other than 429: each URL's last attempt ended with its reason, and its
    // attempts together at least MAX_ATTEMPTS times. An earlier attempt may end otherwise on a
    // loaded machine (a drip answers its headers late: headers_timeout, then total_timeout),
    // and an ordinary page may time out once too, so these are lower bounds.
    let retriedErrors = 0;
    let retriedMin = 0;
    for (const [reason, n] of Object.entries(reasons)) {
      expect(metricSum(m, 'crawld_dead_letters_total', { reason }), reason).toBe(n);
      const errors = metricSum(m, 'crawld_fetch_errors_total', { reason });
      if (!RETRYABLE.has(reason)) expect(errors, reason).toBe(n);
      else if (reason !== 'http_429') {
        expect(errors, reason).toBeGreaterThanOrEqual(n);
        retriedErrors += errors;
        retriedMin += n * MAX_ATTEMPTS;
      }
    }
    expect(retriedErrors).toBeGreaterThanOrEqual(retriedMin);
    expect(metricSum(m, 'crawld_retries_total', { reason: 'http_429' })).toBe(STORM * (MAX_ATTEMPTS - 1) + 1);
    expect(metricSum(m, 'crawld_skipped_total', { reason: 'content_type' })).toBe(1);
    // Nested 200 000 deep: skipped unparsed, so the event loop never stalls on it.
    expect(metricSum(m, 'crawld_skipped_total', { reason: 'html_too_deep' })).toBe(1);
    expect(server.hits(R.deepNesting)).toBe(1);
    expect(metricSum(m, 'crawld_links_total', { result: 'over_cap' })).toBe(MANY_LINKS - MAX_LINKS);
    // The storm's 429s, the 404 page, and the host's soft-404 probe (a 404 here: docs/traps.md).
    expect(metricSum(m, 'crawld_requests_total', { status_class: '4xx' })).toBe(STORM * MAX_ATTEMPTS + 2);

    // Memory: sampled every 100 ms through the bombs and the 100k-link page.
    console.info(`hostile: max RSS ${(maxRss / MiB).toFixed(0)} MiB`);
    expect(maxRss).toBeGreaterThan(0);
    expect(maxRss).toBeLessThan(RSS_BOUND);
    expect(await rssBytes(daemon.child.pid!)).toBeLessThan(RSS_BOUND);
  }, 60_000);

  it('defers Retry-After: 86400 (capped at retry.retryAfterCapMs) instead of hot-looping', async () => {
    // One request so far, and none while we watch: the task waits, it does not spin.
    expect(server.hits(R.retryAfter)).toBe(1);
    await pause(1_000, 'nothing may happen: no second request while the task waits out its Retry-After');
    expect(server.hits(R.retryAfter)).toBe(1);
    const m = await metrics();
    expect(metricSum(m, 'crawld_frontier_delayed')).toBe(1);

    daemon.child.kill('SIGTERM');
    expect(await daemon.exited).toBe(0);
    const db = new Database(join(dataDir, 'frontier.db'), { readonly: true });
    try {
      const row = db
        .prepare('SELECT state, not_before, attempts FROM tasks WHERE url = ?')
        .get(url(R.retryAfter)) as { state: string; not_before: number; attempts: number } | undefined;
      expect(row?.state).toBe('delayed');
      expect(row?.attempts).toBe(1);
      // The default cap is one hour: far in the future, and not the server's full day.
      const inMs = (row?.not_before ?? 0) - Date.now();
      expect(inMs).toBeGreaterThan(50 * 60_000);
      expect(inMs).toBeLessThanOrEqual(3_600_000);
    } finally {
      db.close();
    }
  }, 20_000);
});
