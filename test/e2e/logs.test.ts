import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

/**
 * Logs are JSON lines with one line per notable event: start with a config summary, each
 * dead-lettered task (URL without credentials or query), limit changes at debug, shutdown steps.
 */
describe('structured logs', () => {
  let server: Server;
  let origin: string;

  beforeAll(async () => {
    // 400 pages that link to each other, one that is gone and one whose first request is
    // reset: a reset cuts the host's limit at once, so a limit change is logged however loaded
    // the machine (a latency verdict needs windows of samples the daemon's own lag did not spoil).
    let reset = false;
    server = createServer((req, res) => {
      const n = Number(/^\/p\/(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
      setTimeout(() => {
        if (req.url?.startsWith('/gone')) return res.writeHead(404).end();
        if (req.url === '/reset' && !reset) {
          reset = true;
          return req.socket.destroy();
        }
        const links = Array.from({ length: 5 }, (_, i) => `<a href="/p/${(n * 5 + i + 1) % 400}">x</a>`);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(
          `<title>p${n}</title><a href="/gone?session=s3cr3t">gone</a><a href="/reset">r</a>${links.join('')}`,
        );
      }, 5);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('writes one JSON object per line for start, dead letters, limit changes and shutdown', async () => {
    const dir = tempDir();
    const run = await runCli(
      [
        'crawl',
        `${origin}/p/0`,
        '--data-dir',
        dir,
        '--allow-private-networks',
        '--once',
        '--log-level',
        'debug',
      ],
      {},
      90_000,
    );
    expect(run.code).toBe(0);
    const lines = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.length).toBeGreaterThan(5);
    for (const l of lines) {
      expect(typeof l.timestamp).toBe('string');
      expect(['error', 'warn', 'info', 'debug']).toContain(l.level);
    }
    const byMessage = (m: string) => lines.filter((l) => l.message === m);

    const started = byMessage('crawld started')[0];
    expect(started).toMatchObject({ level: 'info', frontier: 'sqlite', sinks: ['jsonl'], adaptive: true });
    expect(started?.concurrency).toMatchObject({
      global: expect.any(Number),
      maxPerHost: expect.any(Number),
    });

    const dead = byMessage('task dead-lettered');
    expect(dead).toHaveLength(1);
    expect(dead[0]).toMatchObject({
      level: 'warn',
      reason: 'http_404',
      attempts: 1,
      url: `${origin}/gone?…`,
    });
    expect(run.stderr).not.toContain('s3cr3t');

    expect(byMessage('concurrency limit changed').length).toBeGreaterThan(0);
    expect(byMessage('concurrency limit changed')).toContainEqual(
      expect.objectContaining({ level: 'debug', host: expect.any(String), reason: 'drop' }),
    );
    for (const step of [
      'shutdown: draining',
      'shutdown: drained',
      'shutdown: sinks flushed',
      'shutdown: frontier closed',
    ]) {
      expect(byMessage(step)).toHaveLength(1);
    }
  }, 120_000);
});
