import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/observe/logger.js';
import { tempDir } from '../helpers/cli.js';

/**
 * Two jobs on one host: `api` has its own limits (1 in flight, 10 requests/s), `site` has
 * none. The server sees the api job's requests one at a time and metered, while the site
 * job's pages go through at full speed beside them.
 */
describe('per-job limits', () => {
  let server: Server | undefined;
  let daemon: Daemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  });

  it('holds a job to its own rate and concurrency without slowing other jobs on the host', async () => {
    const N = 30;
    const inflight = { a: 0, s: 0 };
    const peak = { a: 0, s: 0 };
    const times: Record<'a' | 's', number[]> = { a: [], s: [] };
    server = createServer((req, res) => {
      const [, kind, n] = /^\/(a|s)\/(\d+)/.exec(req.url ?? '') ?? [];
      if (!kind) return res.writeHead(404).end();
      const k = kind as 'a' | 's';
      inflight[k]++;
      peak[k] = Math.max(peak[k], inflight[k]);
      times[k].push(Date.now());
      setTimeout(() => {
        inflight[k]--;
        const next = Number(n) + 1;
        res.writeHead(200, { 'content-type': 'text/html' });
        // Each page links to the next two so the site job has parallel work.
        res.end(
          `page ${k} ${n} ${next < N ? `<a href="/${k}/${next}">n</a><a href="/${k}/${next + N}">m</a>` : 'end'}`,
        );
      }, 20);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const config = validateConfig({
      dataDir: tempDir(),
      fetch: { allowAddresses: [origin.slice('http://'.length)] },
      concurrency: { adaptive: false, maxPerHost: 8 },
      jobs: [
        {
          id: 'api',
          seeds: [`${origin}/a/0`],
          robots: false,
          scope: { include: ['/a/'], maxDepth: 100 },
          limits: { maxConcurrency: 1, ratePerSec: 10, burst: 1 },
        },
        { id: 'site', seeds: [`${origin}/s/0`], robots: false, scope: { include: ['/s/'], maxDepth: 100 } },
      ],
    });
    daemon = await createDaemon(config, {
      once: true,
      logger: createLogger({ level: 'error', instanceId: 't', silent: true }),
    });
    await daemon.run();

    expect(times.a.length).toBe(times.s.length);
    expect(times.a.length).toBeGreaterThan(N);
    expect(peak.a).toBe(1);
    expect(peak.s).toBeGreaterThan(1);
    // 10/s with a burst of 1: n requests need at least (n - 1) / 10 s (2% for timer rounding).
    const aSpan = times.a.at(-1)! - times.a[0]!;
    expect(aSpan).toBeGreaterThanOrEqual(((times.a.length - 1) / 10) * 1000 * 0.98);
    // The site job was not held behind the api job's queue: it finished first.
    expect(times.s.at(-1)!).toBeLessThan(times.a.at(-1)!);
  }, 60_000);
});
