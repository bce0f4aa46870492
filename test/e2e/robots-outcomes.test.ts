import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readJsonl, runCli, startCli, tempDir } from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { LISTENING } from '../helpers/prom-tools.js';
import { waitFor } from '../helpers/wait.js';

type RobotsHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** One site: `/` links to `/a` and `/private/x`; robots.txt (and /r/N) as the handler says. */
interface Site {
  readonly origin: string;
  /** Every path requested, in order. */
  readonly requested: string[];
  robots: RobotsHandler;
  close(): Promise<void>;
}

const servers: Server[] = [];

async function startSite(robots: RobotsHandler): Promise<Site> {
  const requested: string[] = [];
  const site = { requested, robots } as Site & { origin: string };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    requested.push(path);
    if (path === '/robots.txt' || path.startsWith('/r/')) return site.robots(req, res);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(path === '/' ? '<a href="/a">a</a> <a href="/private/x">p</a>' : `<title>${path}</title>`);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return site;
}

const ROBOTS = 'User-agent: *\nDisallow: /private\n';
const ok: RobotsHandler = (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(ROBOTS);
const status =
  (code: number): RobotsHandler =>
  (_req, res) =>
    res.writeHead(code, { 'content-type': 'text/plain' }).end('no');
/** robots.txt -> /r/1 -> ... -> /r/hops, which serves ROBOTS. */
const chain =
  (hops: number): RobotsHandler =>
  (req, res) => {
    const n = req.url === '/robots.txt' ? 0 : Number(req.url?.slice(3));
    if (n >= hops) return ok(req, res);
    res.writeHead(301, { location: `/r/${n + 1}` }).end();
  };
/** 600 KiB: a rule at the start, comments, and a rule past 500 KiB that is not read. */
const big: RobotsHandler = (_req, res) => {
  const pad = `# ${'x'.repeat(98)}\n`.repeat(6 * 1024);
  res
    .writeHead(200, { 'content-type': 'text/plain' })
    .end(`User-agent: *\nDisallow: /private\n${pad}Disallow: /a\n`);
};
const hang: RobotsHandler = () => {};
const reset: RobotsHandler = (req) => req.socket.destroy();

function config(dataDir: string, sites: readonly Site[]) {
  return {
    dataDir,
    fetch: {
      allowPrivateNetworks: true,
      connectTimeoutMs: 1_000,
      headersTimeoutMs: 800,
      bodyTimeoutMs: 800,
      totalTimeoutMs: 1_500,
    },
    politeness: { robotsRetryMs: 300 },
    retry: { maxAttempts: 2, baseDelayMs: 20, maxDelayMs: 100 },
    jobs: [{ id: 'robots', seeds: sites.map((s) => `${s.origin}/`) }],
  };
}

function writeConfig(dataDir: string, sites: readonly Site[]): string {
  const file = join(tempDir('crawld-robots-config-'), 'config.json');
  writeFileSync(file, JSON.stringify(config(dataDir, sites)));
  return file;
}

const pages = (s: Site) => s.requested.filter((p) => p !== '/robots.txt' && !p.startsWith('/r/'));

afterAll(async () => {
  await Promise.all(
    servers.map(
      (s) =>
        new Promise<void>((r) => {
          s.closeAllConnections();
          s.close(() => r());
        }),
    ),
  );
});

describe('robots.txt fetch outcomes (RFC 9309 §2.3.1), crawl --once', () => {
  it('200, redirect chains, 404 and a 600 KiB file: which URLs were requested', async () => {
    const s200 = await startSite(ok);
    const s301 = await startSite(chain(5));
    const s301long = await startSite(chain(6));
    const s404 = await startSite(status(404));
    const s410 = await startSite(status(410));
    const sBig = await startSite(big);
    const sites = [s200, s301, s301long, s404, s410, sBig];
    const dataDir = tempDir();
    const run = await runCli(['run', '--config', writeConfig(dataDir, sites), '--once'], {}, 90_000);
    expect(run.code).toBe(0);

    // 200 and five redirects: the rules apply.
    for (const s of [s200, s301]) expect(pages(s).sort()).toEqual(['/', '/a']);
    expect(s301.requested.filter((p) => p.startsWith('/r/'))).toHaveLength(5);
    // Six redirects, 404, 410: unavailable, everything allowed.
    for (const s of [s301long, s404, s410]) expect(pages(s).sort()).toEqual(['/', '/a', '/private/x']);
    // The sixth hop is never requested.
    expect(s301long.requested).not.toContain('/r/6');
    // 600 KiB: the first rule applies; the one past 500 KiB is not read.
    expect(pages(sBig).sort()).toEqual(['/', '/a']);
    // One robots.txt fetch per site.
    for (const s of sites) expect(s.requested.filter((p) => p === '/robots.txt')).toHaveLength(1);

    const urls = readJsonl(join(dataDir, 'results.jsonl')).map((r) => r.url);
    expect(urls).toContain(`${sBig.origin}/a`);
    expect(urls).not.toContain(`${s200.origin}/private/x`);
  }, 120_000);

  it('429, 500, 503, timeout and reset: nothing is fetched until robots.txt is readable, then the crawl completes', async () => {
    const handlers: Record<string, RobotsHandler> = {
      '429': status(429),
      '500': status(500),
      '503': status(503),
      timeout: hang,
      reset,
    };
    const sites: Record<string, Site> = {};
    for (const [name, h] of Object.entries(handlers)) sites[name] = await startSite(h);
    const all = Object.values(sites);
    const dataDir = tempDir();
    // With --http-port for /metrics and /api/status (the next test runs without one).
    const cli = startCli(['run', '--config', writeConfig(dataDir, all), '--once', '--http-port', '0']);
    try {
      const api = (await cli.waitFor(LISTENING))[1]!;
      // Each robots.txt is fetched again (backoff from 300 ms), and nothing else is requested;
      // a third request means the second fetch has ended and been counted.
      await waitFor(() => all.every((s) => s.requested.filter((p) => p === '/robots.txt').length >= 3), {
        what: 'robots.txt requested 3 times on every site',
        deadlineMs: 30_000,
      });
      for (const s of all) expect(pages(s)).toEqual([]);
      const metrics = await (await fetch(`${api}/metrics`)).text();
      expect(
        metricSum(metrics, 'crawld_robots_fetches_total', { outcome: 'rate_limited' }),
      ).toBeGreaterThanOrEqual(2);
      expect(
        metricSum(metrics, 'crawld_robots_fetches_total', { outcome: 'server_error' }),
      ).toBeGreaterThanOrEqual(4);
      expect(
        metricSum(metrics, 'crawld_robots_fetches_total', { outcome: 'timeout' }),
      ).toBeGreaterThanOrEqual(2);
      expect(
        metricSum(metrics, 'crawld_robots_fetches_total', { outcome: 'network_error' }),
      ).toBeGreaterThanOrEqual(2);
      expect(metrics).toMatch(/crawld_robots_fetches_total\{outcome="too_many_redirects"\} 0/);
      expect(
        metricSum(metrics, 'crawld_deferred_total', { reason: 'robots_unreachable' }),
      ).toBeGreaterThanOrEqual(10);
      expect(metricSum(metrics, 'crawld_dead_letters_total')).toBe(0);
      const status = (await (await fetch(`${api}/api/status`)).json()) as {
        robots: { unreachable: { origin: string; outcome: string }[] };
      };
      expect(status.robots.unreachable.map((h) => h.origin).sort()).toEqual(all.map((s) => s.origin).sort());
      // --once does not end while tasks wait for robots.txt; nothing was dead-lettered.
      expect(cli.child.exitCode).toBeNull();
      expect(readJsonl(join(dataDir, 'results.jsonl'))).toEqual([]);
      expect(cli.stdout() + cli.stderr()).not.toMatch(/task dead-lettered/);
      expect(cli.stdout()).toMatch(/robots.txt unreachable: host waits/);

      // The sites recover: the waiting tasks run, robots rules apply.
      for (const s of all) s.robots = ok;
      expect(await cli.exited).toBe(0);
      for (const s of all) expect(pages(s).sort()).toEqual(['/', '/a']);
      expect(readJsonl(join(dataDir, 'results.jsonl'))).toHaveLength(all.length * 2);
    } finally {
      if (cli.child.exitCode === null) cli.child.kill('SIGKILL');
    }
  }, 120_000);

  it('crawl --once without an HTTP server waits for a 503 robots.txt to recover, then crawls by it', async () => {
    let fetches = 0;
    const site = await startSite((req, res) => {
      fetches++;
      // Down for the first two fetches (30 s apart by default: robotsRetryMs set short here).
      if (fetches <= 2) return status(503)(req, res);
      ok(req, res);
    });
    const dataDir = tempDir();
    const run = await runCli(['run', '--config', writeConfig(dataDir, [site]), '--once'], {}, 60_000);
    expect(run.code).toBe(0);
    expect(fetches).toBe(3);
    expect(pages(site).sort()).toEqual(['/', '/a']);
    expect(readJsonl(join(dataDir, 'results.jsonl'))).toHaveLength(2);
  }, 90_000);
});
