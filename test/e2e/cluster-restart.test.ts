/**
 * redis-server restarted mid-crawl under two `crawld run` processes: /readyz answers 503
 * while Redis is down and 200 again after it is back, the daemons do not exit, and the
 * crawl completes with every page present, none twice (Redis with appendonly: a clean
 * restart loses nothing).
 */
import { expect, it } from 'vitest';
import { countLines, freePort, scrapeMetrics } from '../helpers/cli.js';
import { countByUrl, sitePages, startCluster, useClusterFixture } from '../helpers/cluster.js';
import { metricSum } from '../helpers/hostile-server.js';
import { waitFor } from '../helpers/wait.js';

const PAGES = 800;
const TOKEN = 'cluster-restart-token-0123456789';

function submit(port: number, body: unknown): Promise<Response> {
  return fetch(`http://127.0.0.1:${port}/api/urls`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

const fx = useClusterFixture({ pages: PAGES, latencyMs: 50, redis: { persistent: true } });

/** crawld_internal_errors_total of the daemon on 127.0.0.1:port (frontier calls that failed). */
async function internalErrors(port: number): Promise<number> {
  return metricSum(await scrapeMetrics(port), 'crawld_internal_errors_total');
}

async function readyz(port: number): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => ({ status: -1 }))).status;
}

it('readiness follows Redis; the crawl survives a redis-server restart and loses nothing', async () => {
  const ports = [await freePort(), await freePort()];
  fx.members = startCluster({
    redisUrl: fx.redis.url,
    keyPrefix: 'restart',
    origin: fx.origin,
    daemons: 2,
    leaseMs: 20_000,
    // A slow crawl (few in flight against 50 ms pages), so the outage falls mid-crawl.
    extra: (i) => ({
      http: { port: ports[i], adminToken: TOKEN },
      concurrency: { maxPerHost: 2, initialPerHost: 2, adaptive: false },
    }),
  });
  for (const p of ports) await waitFor(async () => (await readyz(p)) === 200, 'the daemon ready');
  await waitFor(() => fx.members.every((m) => countLines(m.results) >= 20), {
    what: '20 pages from every daemon',
    deadlineMs: 60_000,
  });

  const errorsBefore = await Promise.all(ports.map(internalErrors));
  await fx.redis.pause();
  const downAt = fx.members.map((m) => countLines(m.results));
  for (const p of ports)
    await waitFor(async () => (await readyz(p)) === 503, {
      what: 'readyz 503 while the frontier is down',
      deadlineMs: 10_000,
    });
  // Submissions are refused at once (not left hanging on retries) while Redis is away, and a
  // priority the Redis frontier cannot store is a 400 whatever the state.
  const refused = await submit(ports[0]!, { urls: [`${fx.origin}/p/1`] });
  expect(refused.status).toBe(503);
  expect(refused.headers.get('retry-after')).toBe('5');
  const tooHigh = await submit(ports[0]!, { urls: [{ url: `${fx.origin}/p/1`, priority: 5000 }] });
  expect(tooHigh.status).toBe(400);
  expect(((await tooHigh.json()) as { issues: string[] }).issues).toEqual([
    'urls[0].priority: must be in [-2048, 2047]',
  ]);
  // Down for a while: until each daemon has had a frontier call fail (a lease, about a second).
  await waitFor(
    async () => (await Promise.all(ports.map(internalErrors))).every((n, i) => n > errorsBefore[i]!),
    'a failed frontier call in every daemon',
  );
  for (const m of fx.members) expect(m.proc.child.exitCode, m.proc.stderr()).toBeNull();
  await fx.redis.resume();
  for (const p of ports) await waitFor(async () => (await readyz(p)) === 200, 'the daemon ready again');

  const codes = await Promise.all(fx.members.map((m) => m.proc.exited));
  expect(codes, fx.members.map((m) => m.proc.stdout()).join('\n')).toEqual([0, 0]);
  const after = fx.members.map((m) => countLines(m.results));
  console.log(
    `cluster restart: pages per daemon when Redis stopped ${downAt.join(', ')}, at the end ${after.join(', ')}`,
  );
  for (const [i, n] of after.entries()) expect(n).toBeGreaterThan(downAt[i]!);
  const counts = countByUrl(fx.members.map((m) => m.results));
  expect(sitePages(fx.origin, PAGES).filter((u) => !counts.has(u))).toEqual([]);
  expect([...counts].filter(([, n]) => n > 1).map(([u]) => u)).toEqual([]);
  // The outage was logged once per daemon, as a warning (not a crash).
  for (const m of fx.members) expect(m.proc.stdout()).toMatch(/frontier store unreachable/);
}, 180_000);
