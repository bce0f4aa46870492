/**
 * Limit hints on a real Redis: the daemons' host limits in the frontier's Redis
 * ({PREFIX:limits:http}, adapters/shared-map/stored-limit-hints.ts), read by a daemon that starts
 * later, and a daemon on a Redis frontier starting a host from them (daemon/start-limits.ts).
 * The rules on a fake clock: test/unit/limit-hints.test.ts, test/unit/aimd-start.test.ts.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import winston from 'winston';
import { RedisMapStore } from '../../src/adapters/shared-map/redis-map-store.js';
import { StoredLimitHints } from '../../src/adapters/shared-map/stored-limit-hints.js';
import { validateConfig } from '../../src/config/config.js';
import { FakeClock } from '../../src/core/clock.js';
import { LIMIT_HINTS } from '../../src/core/limit/limit-hints.js';
import { createDaemon } from '../../src/daemon/daemon.js';
import { tempDir } from '../helpers/cli.js';
import { useRedis } from '../helpers/redis-server.js';

const fx = useRedis();
const clients: Redis[] = [];
const client = () => {
  const c = new Redis(fx.server.url);
  clients.push(c);
  return c;
};
afterAll(async () => {
  for (const c of clients) c.disconnect();
});
beforeEach(async () => {
  await fx.admin.flushdb();
});

const T0 = 1_700_000_000_000;

function daemonHints(instanceId: string, clock: FakeClock, limits: Map<string, number>) {
  const store = new RedisMapStore(client(), 'crawld', 'limits');
  // Rounds only when the test calls tick(): the periods' timers never fire.
  const periodMs = 10 * LIMIT_HINTS.refreshMs;
  const hints = new StoredLimitHints({ store, instanceId, clock, periodMs, current: (h) => limits.get(h) });
  return { store, hints };
}

describe('limit hints on Redis', () => {
  it('a daemon that starts later loads the others’ limits; a running one reads their changes', async () => {
    const clock = new FakeClock(T0);
    const aLimits = new Map([['shop.test', 200]]);
    const a = daemonHints('a', clock, aLimits);
    const b = daemonHints('b', clock, new Map());
    for (const d of [a, b]) {
      await d.store.open();
      await d.hints.open();
    }
    a.hints.changed('shop.test', 200, 8);
    a.hints.changed('polite.test', 1, 8); // never above initialLimit: never written
    await a.hints.tick();
    expect(await fx.admin.hgetall('{crawld:limits:http}:map')).toEqual({
      'shop.test|a': JSON.stringify({ l: 200, t: T0 }),
    });
    expect(b.hints.hint('shop.test')).toBeUndefined();
    await b.hints.tick();
    expect(b.hints.hint('shop.test')).toBe(200);

    const late = daemonHints('late', clock, new Map());
    await late.store.open();
    await late.hints.open();
    expect(late.hints.hint('shop.test')).toBe(200);
    expect(late.hints.hint('polite.test')).toBeUndefined();

    // a cuts its limit by more than a fifth; a second later it is written, and read.
    clock.advance(1000);
    aLimits.set('shop.test', 90);
    a.hints.changed('shop.test', 90, 8);
    await a.hints.tick();
    await late.hints.tick();
    expect(late.hints.hint('shop.test')).toBe(90);
    // a forgot the host: at its next refresh its entry goes, and the host has no hint.
    aLimits.delete('shop.test');
    clock.advance(LIMIT_HINTS.refreshMs);
    await a.hints.tick();
    await late.hints.tick();
    expect(late.hints.hint('shop.test')).toBeUndefined();
    for (const d of [a, b, late]) await d.hints.close();
  });

  it('a daemon on a Redis frontier starts a host at the hint after its probe, and writes its own limit', async () => {
    const server = pagesServer(400);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // Another daemon of the crawl found 64 for the host.
      await fx.admin.hset(
        '{crawld:limits:http}:map',
        `${host}|other`,
        JSON.stringify({ l: 64, t: Date.now() }),
      );
      const changes: { host: string; limit: number; reason: string }[] = [];
      const logger = winston.createLogger({
        level: 'debug',
        format: winston.format.json(),
        transports: [new winston.transports.Stream({ stream: collect(changes) })],
      });
      const config = validateConfig({
        dataDir: tempDir(),
        instanceId: 'solo',
        frontier: { kind: 'redis', url: fx.server.url, keyPrefix: 'crawld' },
        fetch: { allowAddresses: [host] },
        jobs: [{ id: 'site', seeds: [`http://${host}/p/0`], robots: false }],
      });
      const daemon = await createDaemon(config, { once: true, logger });
      await daemon.run();
      await daemon.stop();
      // The first probe at the initial limit (8), then the hint.
      expect(changes[0]).toEqual({ host, limit: 64, reason: 'probe' });
      const mine = await fx.admin.hget('{crawld:limits:http}:map', `${host}|solo`);
      expect(JSON.parse(mine ?? '{}').l).toBeGreaterThan(8);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  }, 60_000);
});

/** /p/N links to the next two pages, up to n, each answered after 10 ms. */
function pagesServer(n: number): Server {
  return createServer((req, res) => {
    const i = Number(/^\/p\/(\d+)$/.exec(req.url ?? '')?.[1] ?? Number.NaN);
    if (!Number.isInteger(i)) return void res.writeHead(404).end();
    setTimeout(() => {
      const links = [2 * i + 1, 2 * i + 2].filter((k) => k < n).map((k) => `<a href="/p/${k}">p</a>`);
      res.writeHead(200, { 'content-type': 'text/html' }).end(`page ${i} ${links.join('')}`);
    }, 10);
  });
}

/** The daemon's 'concurrency limit changed' lines. */
function collect(into: { host: string; limit: number; reason: string }[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.trim()) continue;
        const e = JSON.parse(line) as { message?: string; host: string; limit: number; reason: string };
        if (e.message === 'concurrency limit changed')
          into.push({ host: e.host, limit: e.limit, reason: e.reason });
      }
      cb();
    },
  });
}
