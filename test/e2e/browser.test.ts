/**
 * The browser path through the CLI as a user runs it, with real Chromium: `crawl --once` and
 * `run --once` without an HTTP server, extraction on the rendered DOM, the SSRF guard on a
 * page's own requests, and each bad input ending as a recorded reason on its task.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import {
  freePort,
  listDeadLetters,
  readJsonl,
  runCli,
  runOnce,
  scrapeMetrics,
  tempDir,
  withCli,
  writeJsonConfig,
} from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { browserFetch, type JsSite, requireChromium, startJsSite } from '../helpers/js-site.js';
import { waitFor } from '../helpers/wait.js';

describe('crawld with render.kind browser (real Chromium)', () => {
  beforeAll(requireChromium);

  it('exits 2 naming fetch.browser.executablePath when the browser is missing, and writes nothing', async () => {
    const dir = tempDir();
    const config = writeJsonConfig(dir, {
      fetch: {
        allowAddresses: ['127.0.0.1:9'],
        browser: { executablePath: join(dir, 'no-such-chromium') },
      },
      jobs: [{ id: 'j', seeds: ['http://127.0.0.1:9/'], render: { kind: 'browser' } }],
    });
    const r = await runOnce(config);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).toContain('fetch.browser.executablePath');
    expect(existsSync(join(dir, 'data', 'results.jsonl'))).toBe(false);
  });

  describe('on the JavaScript demo shop', () => {
    let site: DemoSite;
    beforeAll(async () => {
      site = await startDemoSite({ js: true, pages: 15 });
    });
    afterAll(async () => {
      await site?.close();
    });

    const job = (render: Record<string, unknown>) => ({
      id: 'shop',
      seeds: [`${site.url}/`],
      render,
      extract: {
        fields: {
          title: { selector: 'h1.title' },
          price: { selector: 'span.price', regex: '([0-9.,]+)' },
        },
        follow: [{ selector: 'ul.related a' }],
        followAllLinks: false,
      },
    });

    it('crawl --once extracts fields and follows links from the rendered DOM', async () => {
      const dir = tempDir();
      // The config's dataDir (dir/data) gives way to --data-dir.
      const config = writeJsonConfig(dir, {
        fetch: browserFetch(site.port, { maxPages: 2 }),
        jobs: [job({ kind: 'browser', waitForSelector: 'span.price' })],
      });
      const r = await runCli(
        ['crawl', `${site.url}/`, '--config', config, '--data-dir', dir, '--once', '--no-progress'],
        {},
        120_000,
      );
      expect(r.code, r.stderr).toBe(0);
      const records = readJsonl(join(dir, 'results.jsonl'));
      // Every page is reachable only through links the script renders.
      expect(records).toHaveLength(15);
      for (const rec of records) {
        const i = rec.url === `${site.url}/` ? 0 : Number(String(rec.url).split('/p/')[1]);
        expect((rec.fields as Record<string, unknown>).title).toBe(`Product ${i}`);
        expect((rec.fields as Record<string, unknown>).price).toMatch(/^[0-9.,]+$/);
      }
      // The same job over plain HTTP sees the shell only: no fields, no links.
      const plain = tempDir();
      const plainConfig = writeJsonConfig(plain, {
        fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
        jobs: [job({ kind: 'http' })],
      });
      const p = await runCli([
        'run',
        '--config',
        plainConfig,
        '--data-dir',
        plain,
        '--once',
        '--no-progress',
      ]);
      expect(p.code, p.stderr).toBe(0);
      const shells = readJsonl(join(plain, 'results.jsonl'));
      expect(shells).toHaveLength(1);
      expect(shells[0]?.fields).toEqual({ title: null, price: null });
    }, 150_000);
  });

  describe('hostile pages', () => {
    let site: JsSite;
    beforeAll(async () => {
      site = await startJsSite();
    });
    afterAll(async () => {
      await site?.close();
    });

    it('each bad input ends as a recorded reason; the crawl finishes and the guard holds', async () => {
      const dir = tempDir();
      const u = (p: string) => `${site.origin}${p}`;
      const extract = { fields: { title: { selector: 'h1.title' } }, followAllLinks: false };
      const config = writeJsonConfig(dir, {
        dataDir: dir,
        // Only the site's port: the secret server on 127.0.0.1 is refused like any loopback address.
        fetch: browserFetch(site.port, { maxPages: 2 }),
        retry: { maxAttempts: 2, baseDelayMs: 100, maxDelayMs: 200 },
        jobs: [
          {
            id: 'idle',
            seeds: [u('/never-idle')],
            render: { kind: 'browser', waitUntil: 'networkidle', timeoutMs: 3000 },
            extract,
          },
          {
            id: 'bad',
            seeds: ['/loop-a', '/popups', '/alert', '/private-nav', '/ssrf', '/busy'].map(u),
            render: { kind: 'browser', timeoutMs: 5000 },
            extract,
          },
          {
            // Filling a 512 MiB heap takes a while on a loaded machine: a budget it cannot reach.
            id: 'hog',
            seeds: [u('/hog')],
            render: { kind: 'browser', timeoutMs: 60_000 },
            extract,
          },
        ],
      });
      const r = await runOnce(config, 170_000);
      expect(r.code, r.stderr).toBe(0);
      const records = readJsonl(join(dir, 'results.jsonl'));
      const titles = Object.fromEntries(
        records.map((rec) => [new URL(String(rec.url)).pathname, (rec.fields as { title?: string }).title]),
      );
      expect(titles).toStrictEqual({ '/popups': 'popups', '/alert': 'after dialogs', '/ssrf': 'ssrf' });
      const dead = Object.fromEntries(
        (await listDeadLetters(['--data-dir', dir])).map((d) => [
          new URL(d.url).pathname,
          `${d.reason}/${d.attempts}`,
        ]),
      );
      expect(dead).toEqual({
        // Retryable failures were tried twice (retry.maxAttempts), the others once.
        '/never-idle': 'render_timeout/2',
        '/busy': 'render_timeout/2',
        '/hog': 'render_crash/2',
        '/loop-a': 'redirect_loop/1',
        '/private-nav': 'blocked_address/1',
      });
      expect(site.secret.requests).toBe(0);
    }, 180_000);

    it('counts the refused subresource requests of a page in /metrics', async () => {
      const dir = tempDir();
      const port = await freePort();
      const config = writeJsonConfig(dir, {
        dataDir: dir,
        http: { port },
        fetch: browserFetch(site.port),
        jobs: [
          {
            id: 'ssrf',
            seeds: [`${site.origin}/ssrf`],
            render: { kind: 'browser' },
            extract: { fields: { title: { selector: 'h1.title' } } },
          },
        ],
      });
      const metrics = await withCli(['run', '--config', config, '--no-progress'], async () => {
        await waitFor(() => readJsonl(join(dir, 'results.jsonl')).length === 1, {
          what: 'the rendered page’s record',
          deadlineMs: 60_000,
        });
        // The browser's RSS is read every 2 s while it runs.
        return waitFor(
          async () => {
            const m = await scrapeMetrics(port);
            return metricSum(m, 'crawld_browser_rss_bytes') > 0 && m;
          },
          { what: 'the browser’s RSS in /metrics', deadlineMs: 10_000 },
        );
      });
      // iframe, script, fetch and XHR to the secret server: refused after the address check.
      expect(
        metricSum(metrics, 'crawld_browser_blocked_requests_total', { reason: 'blocked_address' }),
      ).toBeGreaterThanOrEqual(4);
      expect(metricSum(metrics, 'crawld_render_duration_seconds_count')).toBe(1);
      expect(metricSum(metrics, 'crawld_browser_rss_bytes')).toBeGreaterThan(0);
      expect(site.secret.requests).toBe(0);
    }, 90_000);
  });
});
