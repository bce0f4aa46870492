import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebhookChangeSink } from '../../src/adapters/sink/webhook-change-sink.js';
import { validateConfig } from '../../src/config/config.js';
import { ChangeDeliveryError } from '../../src/core/errors.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';
import { createLogger } from '../../src/observe/logger.js';
import type { ChangeRecord } from '../../src/ports/page-state.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

interface Received {
  readonly headers: IncomingMessage['headers'];
  readonly body: ChangeRecord;
}

interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** Status of every answer; the last one repeats. */
  statuses: number[];
  close(): Promise<void>;
}

async function startReceiver(statuses: number[]): Promise<Receiver> {
  const received: Received[] = [];
  const state = { statuses };
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c: Buffer) => {
      data += c.toString();
    });
    req.on('end', () => {
      received.push({ headers: req.headers, body: JSON.parse(data) as ChangeRecord });
      const n = received.length - 1;
      const s = state.statuses;
      res.writeHead(s[Math.min(n, s.length - 1)] ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    get statuses() {
      return state.statuses;
    },
    set statuses(v) {
      state.statuses = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const change: ChangeRecord = {
  kind: 'change',
  url: 'http://shop.test/p/1',
  jobId: 'prices',
  taskId: 'task-1',
  generation: 2,
  detectedAt: '2026-01-01T00:00:00.000Z',
  previousFetchedAt: '2025-12-31T00:00:00.000Z',
  changes: { price: { old: 10, new: 12 } },
};

let receiver: Receiver | undefined;
let site: DemoSite | undefined;
let daemon: Daemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
  await site?.close();
  site = undefined;
  await receiver?.close();
  receiver = undefined;
});

describe('WebhookChangeSink', () => {
  it('POSTs the change as JSON with its headers and an idempotency key', async () => {
    receiver = await startReceiver([204]);
    const sink = new WebhookChangeSink({ url: receiver.url, headers: { 'x-signature': 'k1' } });
    await sink.write(change);
    expect(receiver.received).toHaveLength(1);
    const got = receiver.received[0]!;
    expect(got.body).toEqual(change);
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['x-signature']).toBe('k1');
    expect(got.headers['idempotency-key']).toBe('task-1#2');
  });

  it('retries 5xx and 429 with backoff until a 2xx', async () => {
    receiver = await startReceiver([500, 429, 503, 200]);
    const errors: string[] = [];
    const batches: number[] = [];
    const sink = new WebhookChangeSink({
      url: receiver.url,
      maxAttempts: 5,
      backoffBaseMs: 20,
      backoffMaxMs: 50,
      observer: {
        batch: (e) => batches.push(e.records),
        error: (e) => errors.push(e.reason),
        bufferDepth: () => {},
      },
    });
    await sink.write(change);
    expect(receiver.received).toHaveLength(4);
    expect(errors).toEqual(['http_500', 'http_429', 'http_503']);
    expect(batches).toEqual([1]);
  });

  it('gives up after maxAttempts with ChangeDeliveryError', async () => {
    receiver = await startReceiver([502]);
    const sink = new WebhookChangeSink({
      url: receiver.url,
      maxAttempts: 3,
      backoffBaseMs: 10,
      backoffMaxMs: 20,
    });
    await expect(sink.write(change)).rejects.toThrow(ChangeDeliveryError);
    expect(receiver.received).toHaveLength(3);
  });

  it('queues deliveries per endpoint: at most maxConcurrent POSTs in flight, minTimeMs apart', async () => {
    // The receiver holds every POST until the test answers them: a sink fills up to its limit
    // however slow the machine is, and one without a limit would go past it.
    let hold = true;
    let inflight = 0;
    let peak = 0;
    const held: ServerResponse[] = [];
    const starts: number[] = [];
    const server = createServer((req, res) => {
      inflight++;
      peak = Math.max(peak, inflight);
      starts.push(performance.now());
      req.resume();
      if (hold) held.push(res);
      else {
        inflight--;
        res.writeHead(204).end();
      }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    /** n writes at once; answers the held POSTs each time `limit` of them (or all left) are in. */
    const burst = async (sink: WebhookChangeSink, n: number, limit: number) => {
      peak = 0;
      let answered = 0;
      const all = Promise.all(
        Array.from({ length: n }, (_, i) => sink.write({ ...change, taskId: `t${i}` })),
      );
      while (answered < n) {
        const want = Math.min(limit, n - answered);
        await waitFor(() => inflight === want, { what: `${want} POSTs in flight`, every: 'turn' });
        for (const res of held.splice(0)) {
          inflight--;
          answered++;
          res.writeHead(204).end();
        }
      }
      await all;
      return peak;
    };
    try {
      expect(await burst(new WebhookChangeSink({ url, maxConcurrent: 3 }), 40, 3)).toBe(3);
      expect(starts).toHaveLength(40);
      expect(await burst(new WebhookChangeSink({ url }), 40, 8)).toBe(8); // the default
      hold = false;
      starts.length = 0;
      const paced = new WebhookChangeSink({ url, maxConcurrent: 10, minTimeMs: 40 });
      await Promise.all(Array.from({ length: 6 }, (_, i) => paced.write({ ...change, taskId: `t${i}` })));
      // Five gaps of at least 40 ms between starts, less one gap of slack for arrival jitter.
      expect(starts.at(-1)! - starts[0]!).toBeGreaterThanOrEqual(4 * 40);
    } finally {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it('does not retry a 4xx other than 408 and 429', async () => {
    receiver = await startReceiver([400, 200]);
    const sink = new WebhookChangeSink({ url: receiver.url, maxAttempts: 5, backoffBaseMs: 10 });
    await expect(sink.write(change)).rejects.toThrow(ChangeDeliveryError);
    expect(receiver.received).toHaveLength(1);
  });

  it('retries a receiver that is not listening, then gives up', async () => {
    receiver = await startReceiver([200]);
    const url = receiver.url;
    await receiver.close();
    receiver = undefined;
    const errors: string[] = [];
    const sink = new WebhookChangeSink({
      url,
      maxAttempts: 2,
      backoffBaseMs: 10,
      observer: { batch: () => {}, error: (e) => errors.push(e.reason), bufferDepth: () => {} },
    });
    await expect(sink.write(change)).rejects.toThrow(ChangeDeliveryError);
    expect(errors).toEqual(['connection', 'connection']);
  });
});

async function startPriceWatch(hookUrl: string, maxAttempts: number): Promise<Daemon> {
  site = await startDemoSite({ pages: 3 });
  const config = validateConfig({
    dataDir: tempDir(),
    frontier: { kind: 'memory' },
    fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
    changeSinks: [{ kind: 'webhook', url: hookUrl, maxAttempts, backoffBaseMs: 10, backoffMaxMs: 20 }],
    jobs: [
      {
        id: 'prices',
        seeds: [`${site.url}/`],
        recrawlIntervalMs: 300,
        extract: {
          fields: { title: { selector: 'h1.title' }, price: { selector: 'span.price', type: 'number' } },
        },
      },
    ],
  });
  const logger = createLogger({ level: 'error', instanceId: 't', silent: true });
  const d = await createDaemon(config, { once: false, logger });
  void d.run();
  return d;
}

describe('change webhooks in a crawl', () => {
  it('a price change on recrawl produces one POST per page with old and new values', async () => {
    receiver = await startReceiver([200]);
    let pages = 0;
    daemon = await startPriceWatch(receiver.url, 3);
    daemon.events.on('pageDone', () => pages++);
    // Two full passes with the same prices: nothing is posted.
    await waitFor(() => pages >= 6, 'two passes: 6 pages');
    expect(receiver.received).toHaveLength(0);
    site!.setPriceEpoch(1);
    await waitFor(
      () => new Set(receiver!.received.map((r) => r.body.url)).size === 3,
      'a POST for each of the 3 pages',
    );
    // Several more recrawls with the new prices: still one POST per page.
    const after = pages;
    await waitFor(() => pages >= after + 6, '6 more pages');
    expect(receiver.received).toHaveLength(3);
    for (const { body } of receiver.received) {
      expect(body.kind).toBe('change');
      expect(Object.keys(body.changes)).toEqual(['price']);
      expect(typeof body.changes.price!.old).toBe('number');
      expect(body.changes.price!.new).not.toEqual(body.changes.price!.old);
    }
  }, 40_000);

  it('a failing endpoint is retried, then the page is dead-lettered; a redrive re-delivers', async () => {
    receiver = await startReceiver([500]);
    let pages = 0;
    daemon = await startPriceWatch(receiver.url, 3);
    daemon.events.on('pageDone', () => pages++);
    await waitFor(() => pages >= 3, 'the first pass: 3 pages');
    site!.setPriceEpoch(1);
    const d = daemon;
    await waitFor(async () => (await d.frontier.listDead()).length === 3, '3 pages dead-lettered');
    const dead = await d.frontier.listDead();
    expect(dead.map((x) => x.reason)).toEqual(['change_delivery', 'change_delivery', 'change_delivery']);
    // Every page's change was attempted maxAttempts times.
    const perUrl = new Map<string, number>();
    for (const r of receiver.received) perUrl.set(r.body.url, (perUrl.get(r.body.url) ?? 0) + 1);
    expect([...perUrl.values()]).toEqual([3, 3, 3]);

    receiver.statuses = [200];
    const before = receiver.received.length;
    expect(await d.frontier.redrive()).toBe(3);
    d.scheduler.kick(true);
    await waitFor(() => receiver!.received.length >= before + 3, 'the 3 redriven changes delivered');
    const redelivered = receiver.received.slice(before);
    expect(new Set(redelivered.map((r) => r.body.url)).size).toBe(3);
    for (const r of redelivered) expect(Object.keys(r.body.changes)).toEqual(['price']);
  }, 40_000);
});
