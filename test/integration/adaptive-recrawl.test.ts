/**
 * Adaptive recrawl intervals on a real server where the same 10 % of pages change every
 * cycle: over the same simulated hours, the requests move to those pages. The daemon's clock
 * is real time plus an offset the test moves on by one cycle at a time (timers stay real, so
 * the crawl itself runs as usual).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { type Clock, systemClock } from '../../src/core/clock.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/observe/logger.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const PAGES = 20;
const HOT = new Set([3, 11]); // 10 % of the pages: they change every cycle
const CYCLE_MS = 15 * 60_000;
const CYCLES = 24; // six simulated hours

async function startSite(): Promise<{ port: number; hits: number[]; bump(): void; close(): Promise<void> }> {
  const hits = new Array<number>(PAGES).fill(0);
  let epoch = 0;
  const server: Server = createServer((req, res) => {
    const m = /^\/p\/(\d+)$/.exec(req.url ?? '');
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(Array.from({ length: PAGES }, (_, i) => `<a href="/p/${i}">${i}</a>`).join(''));
    }
    const i = Number(m?.[1] ?? -1);
    if (!(i >= 0 && i < PAGES)) return res.writeHead(404).end();
    hits[i] = (hits[i] ?? 0) + 1;
    const version = HOT.has(i) ? epoch : 0;
    const etag = `"${i}-${version}"`;
    if (req.headers['if-none-match'] === etag) return res.writeHead(304, { etag }).end();
    res.writeHead(200, { 'content-type': 'text/html', etag });
    res.end(`<h1 class="title">page ${i} version ${version}</h1>`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    bump: () => {
      epoch++;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

describe('adaptive recrawl intervals', () => {
  let daemon: Daemon | undefined;
  let site: Awaited<ReturnType<typeof startSite>> | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await site?.close();
  });

  /** Requests per page over CYCLES cycles of the site, with or without adaptive intervals. */
  async function crawl(adaptive: boolean): Promise<number[]> {
    site = await startSite();
    let offset = 0;
    const clock: Clock = { ...systemClock, now: () => Date.now() + offset };
    const config = validateConfig({
      dataDir: tempDir(),
      frontier: { kind: 'memory' },
      fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
      politeness: { minDelayMs: 0 },
      jobs: [
        {
          id: 'a',
          seeds: [`http://127.0.0.1:${site.port}/`],
          robots: false,
          recrawlIntervalMs: 60 * 60_000,
          recrawl: { minIntervalMs: CYCLE_MS, maxIntervalMs: 24 * 60 * 60_000, adaptive },
          extract: { fields: { title: { selector: 'h1.title' } } },
        },
      ],
    });
    const d = await createDaemon(config, {
      once: false,
      clock,
      logger: createLogger({ level: 'error', instanceId: 't', silent: true }),
    });
    daemon = d;
    void d.run();
    // Quiet: nothing ready or leased (every due page fetched and rescheduled).
    const settled = async () => {
      const s = await d.frontier.stats();
      return s.leased === 0 && s.pending === s.delayed && s.pending > 0;
    };
    await waitFor(
      async () => (await settled()) && site!.hits.every((h) => h === 1),
      'every page fetched once and rescheduled',
    );
    for (let c = 0; c < CYCLES; c++) {
      site.bump();
      offset += CYCLE_MS;
      d.scheduler.kick();
      await waitFor(settled, 'the cycle’s due pages fetched and rescheduled');
    }
    const hits = [...site.hits];
    await d.stop();
    daemon = undefined;
    await site.close();
    site = undefined;
    return hits;
  }

  it('spends the requests on the pages that change', async () => {
    const fixed = await crawl(false);
    const adapted = await crawl(true);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    const share = (hits: number[]) => sum(hits.filter((_, i) => HOT.has(i))) / sum(hits);
    // Fixed hourly: every page 1 + 6 times, the hot ones' share is their 10 %.
    expect(fixed.every((h) => h === fixed[0])).toBe(true);
    expect(share(fixed)).toBeCloseTo(0.1, 5);
    // Adaptive: a hot page comes back after 60, 30, then every 15 minutes (21 fetches in 6 h),
    // a cold one after 60, 90, 135 minutes (4 fetches): 42 of 114 requests, 3.7 times 10 %.
    for (const i of HOT) expect(adapted[i]).toBeGreaterThanOrEqual(20);
    const coldMax = Math.max(...adapted.filter((_, i) => !HOT.has(i)));
    expect(coldMax).toBeLessThanOrEqual(4);
    expect(share(adapted)).toBeGreaterThan(3 * share(fixed));
    expect(sum(adapted)).toBeLessThan(sum(fixed));
  }, 120_000);
});
