import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { RobotsCache, type RobotsOutcome } from '../../src/adapters/robots/robots-cache.js';
import { FakeClock } from '../../src/core/clock.js';
import { closeAll, type Handler, makeFetcher, startServer } from '../helpers/fetch.js';

const TTL = 3_600_000;
const RETRY = 30_000;

/** A server whose robots.txt answer the test switches; the cache on a fake clock. */
async function setup(initial: Handler, fetcherOptions: Parameters<typeof makeFetcher>[0] = {}) {
  let robots = initial;
  const server = await startServer((req, res) => robots(req, res));
  const clock = new FakeClock();
  const outcomes: RobotsOutcome[] = [];
  const cache = new RobotsCache({
    fetcher: makeFetcher({ acceptContentTypes: ['text/*', 'application/*'], ...fetcherOptions }),
    clock,
    userAgent: 'crawld/0.1 (+https://example.test)',
    ttlMs: TTL,
    retryMs: RETRY,
    onFetch: (_h, o) => outcomes.push(o),
  });
  const robotsFetches = () => server.paths.filter((p) => p === '/robots.txt').length;
  return {
    server,
    clock,
    cache,
    outcomes,
    robotsFetches,
    set: (h: Handler) => {
      robots = h;
    },
  };
}

const text =
  (body: string): Handler =>
  (_req, res) =>
    res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
const status =
  (code: number): Handler =>
  (_req, res) =>
    res.writeHead(code).end();

afterEach(closeAll);

describe('RobotsCache (RFC 9309 §2.3.1, §2.4)', () => {
  it('an unreachable robots.txt without an earlier copy: unreachable, refetched with a doubling backoff capped at the TTL', async () => {
    const t = await setup(status(503));
    const url = `${t.server.origin}/a`;
    const v1 = await t.cache.check(url);
    expect(v1).toEqual({ kind: 'unreachable', retryAt: t.clock.now() + RETRY, outcome: 'server_error' });
    // Before retryAt: no new fetch.
    t.clock.advance(RETRY - 1);
    expect((await t.cache.check(url)).kind).toBe('unreachable');
    expect(t.robotsFetches()).toBe(1);
    const delays: number[] = [];
    let at = v1.kind === 'unreachable' ? v1.retryAt : 0;
    for (let i = 0; i < 10; i++) {
      t.clock.advance(at - t.clock.now());
      const v = await t.cache.check(url);
      if (v.kind !== 'unreachable') throw new Error('expected unreachable');
      delays.push(v.retryAt - t.clock.now());
      at = v.retryAt;
    }
    expect(delays.slice(0, 4)).toEqual([2 * RETRY, 4 * RETRY, 8 * RETRY, 16 * RETRY]);
    expect(Math.max(...delays)).toBe(TTL);
    expect(t.robotsFetches()).toBe(11);
    expect(t.cache.unreachable()).toMatchObject([{ origin: t.server.origin, usingCachedCopy: false }]);
    // It comes back: rules apply, the host leaves the unreachable list.
    t.set(text('User-agent: *\nDisallow: /private\n'));
    t.clock.advance(at - t.clock.now());
    expect(await t.cache.check(url)).toEqual({ kind: 'allow' });
    expect(await t.cache.check(`${t.server.origin}/private/x`)).toEqual({ kind: 'disallow' });
    expect(t.cache.unreachable()).toEqual([]);
  });

  it('a copy fetched earlier keeps applying while robots.txt is unreachable (§2.4)', async () => {
    const t = await setup(text('User-agent: crawld\nDisallow: /private\n'));
    expect((await t.cache.check(`${t.server.origin}/private`)).kind).toBe('disallow');
    t.set((req) => req.socket.destroy());
    t.clock.advance(TTL);
    expect((await t.cache.check(`${t.server.origin}/private`)).kind).toBe('disallow');
    expect((await t.cache.check(`${t.server.origin}/public`)).kind).toBe('allow');
    expect(t.outcomes).toEqual(['parsed', 'network_error']);
    expect(t.cache.unreachable()).toMatchObject([{ outcome: 'network_error', usingCachedCopy: true }]);
  });

  it('429 is unreachable, 404 and 401 allow everything; one fetch per TTL', async () => {
    const t = await setup(status(429));
    expect((await t.cache.check(`${t.server.origin}/x`)).kind).toBe('unreachable');
    t.set(status(404));
    t.clock.advance(RETRY);
    expect((await t.cache.check(`${t.server.origin}/x`)).kind).toBe('allow');
    t.set(status(401));
    t.clock.advance(TTL - 1);
    expect((await t.cache.check(`${t.server.origin}/y`)).kind).toBe('allow');
    expect(t.robotsFetches()).toBe(2);
    t.clock.advance(1);
    expect((await t.cache.check(`${t.server.origin}/y`)).kind).toBe('allow');
    expect(t.outcomes).toEqual(['rate_limited', 'unavailable', 'unavailable']);
  });

  it("a job's own User-Agent picks its group", async () => {
    const t = await setup(
      text('User-agent: crawld\nDisallow: /\n\nUser-agent: OtherBot/2.0\nDisallow: /other\n'),
    );
    expect((await t.cache.check(`${t.server.origin}/x`)).kind).toBe('disallow');
    expect((await t.cache.check(`${t.server.origin}/x`, undefined, 'otherbot/3 (+info)')).kind).toBe('allow');
    expect((await t.cache.check(`${t.server.origin}/other/1`, undefined, 'OtherBot')).kind).toBe('disallow');
    // A token no group names falls to '*' (none here): allowed.
    expect((await t.cache.check(`${t.server.origin}/x`, undefined, 'Mozilla/5.0 (X11)')).kind).toBe('allow');
  });

  it('a file of any size: the head is read and applied, also past maxBodyBytes and gzipped', async () => {
    // The daemon's robots fetcher: caps one byte past 500 KiB, truncating instead of failing.
    const robotsFetcher = { maxBodyBytes: 512_001, maxDecodedBytes: 512_001, truncateBody: true };
    const head = 'User-agent: *\nDisallow: /private\n';
    const huge = Buffer.concat([
      Buffer.from(head),
      Buffer.alloc(20 * 1024 * 1024, '#'),
      Buffer.from('\nDisallow: /a\n'),
    ]);
    const plain = await setup(
      (_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(huge),
      robotsFetcher,
    );
    expect((await plain.cache.check(`${plain.server.origin}/private/x`)).kind).toBe('disallow');
    expect((await plain.cache.check(`${plain.server.origin}/a`)).kind).toBe('allow');
    expect(plain.outcomes).toEqual(['parsed']);
    const pad = `#${'x'.repeat(99)}\n`.repeat(200_000); // 20 MB of comment lines, ~60 KB gzipped
    const zipped = gzipSync(`${head}${pad}Disallow: /a\n`);
    const gz = await setup(
      (_req, res) =>
        res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' }).end(zipped),
      robotsFetcher,
    );
    expect((await gz.cache.check(`${gz.server.origin}/private/x`)).kind).toBe('disallow');
    expect((await gz.cache.check(`${gz.server.origin}/a`)).kind).toBe('allow');
    expect(gz.outcomes).toEqual(['parsed']);
  });

  it("a variant fetcher shares its parent's connections: robots.txt opens no connection of its own", async () => {
    const server = await startServer((req, res) => {
      const type = req.url === '/robots.txt' ? 'text/plain' : 'text/html';
      res.writeHead(200, { 'content-type': type }).end(`${req.url}`);
    });
    const fetcher = makeFetcher({ acceptContentTypes: ['text/html'] });
    const robots = fetcher.variant({ acceptContentTypes: ['text/*'], maxRedirects: 5, truncateBody: true });
    const cache = new RobotsCache({ fetcher: robots, clock: new FakeClock(), userAgent: 'crawld' });
    // The parent's pool, warmed; the variant's robots.txt fetch opens no connection of its own.
    expect((await fetcher.fetch({ url: `${server.origin}/a` })).status).toBe(200);
    expect((await fetcher.fetch({ url: `${server.origin}/b` })).status).toBe(200);
    const warm = server.connections;
    // text/plain: the parent's own accept list refuses it, the robots variant takes it.
    expect((await cache.check(`${server.origin}/c`)).kind).toBe('allow');
    expect(server.connections).toBe(warm);
    await robots.close(); // closes nothing: the parent still fetches
    expect((await fetcher.fetch({ url: `${server.origin}/d` })).status).toBe(200);
    expect(server.paths).toEqual(['/a', '/b', '/robots.txt', '/d']);
  });

  it('any bytes never throw: binary garbage, a NUL-filled file, an endless line', async () => {
    const garbage = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));
    for (const body of [garbage, Buffer.alloc(100_000), Buffer.from(`Disallow: /${'a'.repeat(2_000_000)}`)]) {
      const t = await setup((_req, res) =>
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body),
      );
      const v = await t.cache.check(`${t.server.origin}/x`);
      expect(['allow', 'disallow']).toContain(v.kind);
    }
    // An image where robots.txt should be: no rules published, everything allowed.
    const t = await setup((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end('x'));
    expect(await t.cache.check(`${t.server.origin}/x`)).toEqual({ kind: 'allow' });
    expect(t.outcomes).toEqual(['unavailable']);
  });
});
