/**
 * Two `crawld run --once` daemons on one Redis frontier share one job's cookie jar: the session
 * the site opens on `/` (fetched by one of them) is sent by both to the pages behind it, which
 * answer 403 without it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readJsonl } from '../helpers/cli.js';
import { startCluster, stopAll } from '../helpers/cluster.js';
import { useSite } from '../helpers/engine.js';
import { type RedisServer, startRedis } from '../helpers/redis-server.js';

const PAGES = 240;

describe('daemons on one Redis share the cookie jar', () => {
  const issued: string[] = [];
  const refused: string[] = [];
  const site = useSite((req, res) => {
    const url = req.url ?? '/';
    if (url === '/robots.txt') return res.writeHead(404).end();
    if (url === '/') {
      const sid = `sess-${Math.random().toString(36).slice(2)}`;
      issued.push(sid);
      const links = Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i + 1}">${i + 1}</a>`).join('');
      res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': `sid=${sid}; Path=/; HttpOnly` });
      return res.end(`<title>login</title>${links}`);
    }
    const sid = /(?:^|;\s*)sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
    if (sid === undefined || !issued.includes(sid)) {
      refused.push(url);
      res.writeHead(403, { 'content-type': 'text/html' });
      return res.end('<title>log in first</title>');
    }
    // Slow enough that both daemons get a share of the pages.
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>private ${url}</title>`);
    }, 40);
  });
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('every page behind the session is fetched with it, by both daemons', async () => {
    const members = startCluster({
      redisUrl: redis.url,
      keyPrefix: 'jar',
      origin: site.origin,
      daemons: 2,
      extra: () => ({
        concurrency: { global: 8, maxPerHost: 4, initialPerHost: 4 },
        log: { level: 'debug' },
      }),
    });
    try {
      const codes = await Promise.all(members.map((m) => m.proc.exited));
      expect(codes, members.map((m) => m.proc.stderr()).join('\n')).toEqual([0, 0]);
      expect(refused).toEqual([]);
      expect(issued).toHaveLength(1);
      const perDaemon = members.map((m) =>
        readJsonl(m.results).filter((r) => String(r.url).includes('/p/') && r.status === 200),
      );
      console.log(`cluster cookies: private pages per daemon ${perDaemon.map((p) => p.length).join(', ')}`);
      expect(perDaemon.reduce((n, p) => n + p.length, 0)).toBe(PAGES);
      for (const p of perDaemon) expect(p.length).toBeGreaterThan(0);
      // The session id is in no log line and no record of either daemon.
      for (const m of members) {
        expect(m.proc.stdout() + m.proc.stderr()).not.toContain(issued[0]);
        expect(readFileSync(m.results, 'utf8')).not.toContain(issued[0]);
      }
    } finally {
      await stopAll(members);
    }
  }, 120_000);
});
