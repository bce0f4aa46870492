/**
 * crawld never fetches its own HTTP listener (admin API, metrics, status page), even with
 * allowPrivateNetworks: not through a crawled link, and not from a rendered page's script.
 * The CLI runs as a user runs it, with --http-port on a port the test picked.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  listDeadLetters,
  readJsonl,
  runOnce,
  scrapeMetrics,
  tempDir,
  withCli,
  writeJsonConfig,
} from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { CHROMIUM, requireChromium } from '../helpers/js-site.js';
import { waitFor } from '../helpers/wait.js';

describe("crawld's own listener is off limits to the crawl", () => {
  let server: http.Server;
  let origin: string;
  let adminPort = 0;
  /** Requests for /spy: one per render of it (a render that failed under load is retried). */
  let spyHits = 0;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const html = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (req.url === '/robots.txt') return res.writeHead(404).end();
      if (req.url === '/') {
        return html(
          `<html><head><title>home</title></head><body>` +
            `<a href="http://127.0.0.1:${adminPort}/api/jobs">jobs</a>` +
            `<a href="http://[::ffff:127.0.0.1]:${adminPort}/metrics">metrics</a>` +
            `<a href="/ok">ok</a></body></html>`,
        );
      }
      if (req.url === '/spy') {
        spyHits++;
        // A page whose script reads the admin API and writes what it got into the DOM.
        return html(
          `<html><head><title>spy</title></head><body><p id="leak">none</p><script>
            fetch('http://127.0.0.1:${adminPort}/api/jobs').then((r) => r.text())
              .then((t) => { document.getElementById('leak').textContent = 'LEAK ' + t; })
              .catch(() => { document.getElementById('leak').textContent = 'refused'; })
              .finally(() => document.body.insertAdjacentHTML('beforeend', '<span id="done">1</span>'));
          </script></body></html>`,
        );
      }
      return html('<html><head><title>ok</title></head><body>fine</body></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // Picked after the site listens: a port freePort has just released can be the next one
    // listen(0) hands out, and then crawld's listener and the site would want the same port.
    adminPort = await freePort();
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('run --once: links to the admin API and metrics, in scope, are refused as blocked_address', async () => {
    const dir = tempDir();
    const config = writeJsonConfig(dir, {
      http: { port: adminPort },
      fetch: { allowPrivateNetworks: true },
      // Every host, so that only the listener guard stands between the crawl and the API.
      jobs: [{ id: 'j', seeds: [`${origin}/`], scope: { hosts: ['*'] } }],
    });
    const run = await runOnce(config);
    expect(run.code, run.stderr).toBe(0);
    const urls = readJsonl(join(dir, 'data', 'results.jsonl')).map((r) => String(r.url));
    expect(urls.sort()).toEqual([`${origin}/`, `${origin}/ok`]);
    const dead = await listDeadLetters(['--config', config]);
    expect(dead.map((d) => d.reason)).toEqual(['blocked_address', 'blocked_address']);
    expect(dead.map((d) => new URL(d.url).port)).toEqual([String(adminPort), String(adminPort)]);
  });

  it("a rendered page's script cannot reach the admin API: the request is refused, counted", async () => {
    requireChromium();
    const dir = tempDir();
    const config = writeJsonConfig(dir, {
      http: { port: adminPort },
      fetch: { allowPrivateNetworks: true, browser: { executablePath: CHROMIUM } },
      jobs: [
        {
          id: 'spy',
          seeds: [`${origin}/spy`],
          scope: { maxDepth: 0 },
          render: { kind: 'browser', waitForSelector: '#done', blockResources: [] },
          extract: { fields: { leak: { selector: '#leak' } }, followAllLinks: false },
        },
      ],
    });
    // Not --once: the daemon stays up so that its own /metrics can be read after the render.
    await withCli(['run', '--config', config], async () => {
      await waitFor(
        async () => metricSum(await scrapeMetrics(adminPort), 'crawld_pages_total', { result: 'ok' }) >= 1,
        { what: 'the rendered page counted ok in /metrics', deadlineMs: 90_000 },
      );
      const text = await scrapeMetrics(adminPort);
      // Each render's one request to the API refused and counted (a render retried on a loaded
      // machine makes its own).
      expect(spyHits).toBeGreaterThanOrEqual(1);
      expect(metricSum(text, 'crawld_browser_blocked_requests_total', { reason: 'blocked_address' })).toBe(
        spyHits,
      );
      const [record] = readJsonl(join(dir, 'data', 'results.jsonl'));
      expect(record?.fields).toEqual({ leak: 'refused' });
    });
  }, 150_000);
});
