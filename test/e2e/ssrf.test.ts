import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, startCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { LISTENING } from '../helpers/prom-tools.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'ssrf-test-admin-token-0123456789';

interface Counted {
  readonly port: number;
  connections: number;
  requests: number;
  close(): Promise<void>;
}

async function countedServer(handler: http.RequestListener): Promise<Counted> {
  const server = http.createServer();
  // No idle close racing a reused socket during the test (that would be a 'connection' error).
  server.keepAliveTimeout = 60_000;
  const state = { connections: 0, requests: 0 };
  server.on('connection', () => state.connections++);
  server.on('request', (req, res) => {
    state.requests++;
    handler(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    port,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
}

/**
 * The SSRF guard through the whole daemon, private networks not allowed. Only loopback is
 * ever dialled: the "internal" target is a second 127.0.0.1 server that must see no
 * connection at all. The entry server is reachable only through an exact allow rule.
 */
describe('SSRF guard end to end', () => {
  let target: Counted;
  let entry: Counted;
  let daemon: CliProcess;
  let api: string;

  beforeAll(async () => {
    target = await countedServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('secret'),
    );
    entry = await countedServer((req, res) => {
      if (req.url === '/redirect') {
        res.writeHead(302, { location: `http://127.0.0.1:${target.port}/admin` }).end();
      } else {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>entry</title>');
      }
    });
    const dir = tempDir('crawld-ssrf-');
    const file = writeJsonConfig(
      dir,
      {
        http: { adminToken: TOKEN },
        fetch: { allowPrivateNetworks: false, allowAddresses: [`127.0.0.1:${entry.port}`] },
        retry: { maxAttempts: 1 },
        jobs: [
          {
            id: 'ssrf',
            robots: false,
            scope: { hosts: ['*'] },
            seeds: [
              `http://127.0.0.1:${entry.port}/`,
              `http://127.0.0.1:${entry.port}/redirect`,
              // A name, checked after DNS resolution: localhost is loopback.
              `http://localhost:${target.port}/`,
            ],
          },
        ],
      },
      'config.json',
    );
    daemon = startCli(['run', '--config', file, '--http-port', '0']);
    api = (await daemon.waitFor(LISTENING))[1]!;
  });

  afterAll(async () => {
    if (daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await target.close();
    await entry.close();
  });

  it('refuses loopback seeds, localhost and a redirect to loopback; the target sees nothing', async () => {
    // Submitted at runtime, past the config's seed check: literal, decimal and mapped forms.
    const submitted = [
      `http://127.0.0.1:${target.port}/direct`,
      `http://2130706433:${target.port}/decimal`,
      `http://[::ffff:127.0.0.1]:${target.port}/mapped`,
    ];
    const res = await fetch(`${api}/api/urls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ urls: submitted }),
    });
    expect(res.status).toBe(202);

    type Dead = { url: string; reason: string };
    const dead = async () =>
      ((await (await fetch(`${api}/api/dlq?limit=100`)).json()) as { items: Dead[] }).items;
    await waitFor(async () => (await dead()).length === 5, {
      what: 'five dead letters',
      deadlineMs: 15_000,
      every: 100,
    });
    const byUrl = new Map((await dead()).map((d) => [d.url, d.reason]));
    expect(byUrl).toEqual(
      new Map([
        [`http://127.0.0.1:${target.port}/direct`, 'blocked_address'],
        // The frontier stores the WHATWG-normalised form.
        [`http://127.0.0.1:${target.port}/decimal`, 'blocked_address'],
        [`http://[::ffff:7f00:1]:${target.port}/mapped`, 'blocked_address'],
        [`http://localhost:${target.port}/`, 'blocked_address'],
        [`http://127.0.0.1:${entry.port}/redirect`, 'blocked_address'],
      ]),
    );
    // The allowed server was crawled (its page and the redirect hop), the target never dialled.
    expect(entry.requests).toBe(2);
    expect(target.connections).toBe(0);
    expect(target.requests).toBe(0);

    const m = await (await fetch(`${api}/metrics`)).text();
    expect(metricSum(m, 'crawld_fetch_errors_total', { reason: 'blocked_address' })).toBe(5);
    expect(metricSum(m, 'crawld_dead_letters_total', { reason: 'blocked_address' })).toBe(5);
    expect(metricSum(m, 'crawld_pages_total', { result: 'ok' })).toBe(1);
  }, 30_000);
});
