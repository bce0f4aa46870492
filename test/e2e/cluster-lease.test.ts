/**
 * Leases on a shared Redis frontier, through `crawld run --once` as a user runs it (a real
 * redis-server, the real CLI): a task that runs longer than its lease is not fetched by
 * another daemon while its holder works on it (the holder extends the lease, and only it),
 * and once the holder is SIGKILLed the task comes back within leaseMs of the kill and the
 * other daemon fetches it.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countByUrl, type Member, startCluster, stopAll } from '../helpers/cluster.js';
import { useRedis } from '../helpers/redis-server.js';
import { pause, waitFor } from '../helpers/wait.js';

const LEASE_MS = 3_000;
const PAGES = 30;

interface Hit {
  readonly path: string;
  readonly agent: string;
  readonly at: number;
}

const redis = useRedis();
const hits: Hit[] = [];
/** The first request for /slow, held open: it answers only when its daemon is gone. */
const held: ServerResponse[] = [];
let server: Server;
let origin: string;
let members: Member[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '';
    hits.push({ path, agent: String(req.headers['user-agent']), at: Date.now() });
    const page = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
    if (path === '/') {
      const links = Array.from({ length: PAGES - 2 }, (_, i) => `<a href="/p${i + 1}">p</a>`).join('');
      page(`<html><body>${links}<a href="/slow">slow</a></body></html>`);
    } else if (path === '/slow' && hits.filter((h) => h.path === '/slow').length === 1) {
      held.push(res);
    } else if (path === '/slow' || /^\/p\d+$/.test(path)) {
      page(`<html><body>page ${path}</body></html>`);
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await stopAll(members);
  for (const res of held) res.destroy();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('a lease on a shared frontier', () => {
  it('is extended by its holder while the task runs, and comes back within leaseMs of the holder being killed', async () => {
    members = startCluster({
      redisUrl: redis.server.url,
      keyPrefix: 'lease',
      origin,
      daemons: 2,
      leaseMs: LEASE_MS,
      // Each daemon names itself to the site; a fetch may run far longer than the lease, and
      // is not given up as hung at the host's learned timeout (its other pages answer at once).
      extra: (i) => ({
        fetch: { userAgent: `crawld-d${i}`, totalTimeoutMs: 60_000, adaptiveTimeout: { enabled: false } },
      }),
    });
    const slow = () => hits.filter((h) => h.path === '/slow');
    await waitFor(() => slow().length === 1, { what: 'the first slow page', deadlineMs: 60_000 });
    const first = slow()[0]!;
    const holder = members.find((m) => first.agent === `crawld-${m.id}`)!;
    const other = members.find((m) => m !== holder)!;
    // Three leases long: without extensions the other daemon (idle, looking for work every
    // 500 ms) would have leased and fetched /slow twice by now.
    await pause(3 * LEASE_MS, 'nothing may happen: no second fetch of /slow while its holder works on it');
    expect(slow(), 'fetched again while its holder worked on it').toHaveLength(1);

    holder.proc.child.kill('SIGKILL');
    const killedAt = Date.now();
    expect(await holder.proc.exited).toBe('SIGKILL');
    await waitFor(() => slow().length === 2, { what: 'the second slow page', deadlineMs: 60_000 });
    const second = slow()[1]!;
    console.log(
      `cluster lease: /slow fetched again ${((second.at - killedAt) / 1000).toFixed(2)} s after its holder's SIGKILL (leaseMs ${LEASE_MS})`,
    );
    expect(second.agent).toBe(`crawld-${other.id}`);
    expect(await other.proc.exited).toBe(0);
    const counts = countByUrl([holder.results, other.results]);
    expect(counts.get(`${origin}/slow`)).toBe(1);
    expect(counts.size).toBe(PAGES);
  }, 120_000);
});
