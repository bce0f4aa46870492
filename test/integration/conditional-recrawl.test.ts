/**
 * Conditional recrawls against a real server whose paths each play one kind of validator
 * policy: strong ETag, weak ETag, Last-Modified only, one that ignores the validators (200
 * every time) and one that answers 304 to a request that carried none.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { createDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { createLogger } from '../../src/observe/logger.js';
import { tempDir } from '../helpers/cli.js';
import { metricSum } from '../helpers/hostile-server.js';
import { waitFor } from '../helpers/wait.js';

interface Seen {
  path: string;
  inm: string | undefined;
  ims: string | undefined;
  status: number;
}

const LM = 'Wed, 01 Jul 2026 10:00:00 GMT';
const PAGE = (title: string, links = '') =>
  `<html><body><h1 class="title">${title}</h1>${links}<p>${'x'.repeat(4000)}</p></body></html>`;

/** The server; `epoch` bumps the content (and validators) of /strong. */
async function startValidatorServer(): Promise<{
  url: string;
  port: number;
  seen: Seen[];
  bump(): void;
  close(): Promise<void>;
}> {
  const seen: Seen[] = [];
  let version = 1;
  const server: Server = createServer((req: IncomingMessage, res) => {
    const path = req.url ?? '/';
    const inm = req.headers['if-none-match'];
    const ims = req.headers['if-modified-since'];
    const answer = (status: number, headers: Record<string, string>, body = '') => {
      seen.push({ path, inm, ims, status });
      res.writeHead(status, { 'content-type': 'text/html', ...headers });
      res.end(status === 304 ? undefined : body);
    };
    switch (path) {
      case '/':
        return inm === '"root"'
          ? answer(304, { etag: '"root"' })
          : answer(
              200,
              { etag: '"root"' },
              PAGE(
                'root',
                ['/strong', '/weak', '/lm', '/ignore', '/rogue'].map((p) => `<a href="${p}">x</a>`).join(''),
              ),
            );
      case '/strong': {
        const tag = `"s${version}"`;
        return inm === tag
          ? answer(304, { etag: tag })
          : answer(200, { etag: tag }, PAGE(`strong ${version}`));
      }
      case '/weak':
        return inm === 'W/"w1"'
          ? answer(304, { etag: 'W/"w1"' })
          : answer(200, { etag: 'W/"w1"' }, PAGE('weak'));
      case '/lm':
        return ims !== undefined && Date.parse(ims) >= Date.parse(LM)
          ? answer(304, { 'last-modified': LM })
          : answer(200, { 'last-modified': LM }, PAGE('lm'));
      case '/ignore':
        return answer(200, { etag: '"i"', 'last-modified': LM }, PAGE('ignore'));
      case '/rogue':
        return answer(304, {});
      default:
        return answer(404, {}, 'nope');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    bump: () => {
      version++;
    },
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

function records(dir: string): Record<string, unknown>[] {
  return readFileSync(join(dir, 'results.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('conditional recrawls (ETag / Last-Modified, 304)', () => {
  let server: Awaited<ReturnType<typeof startValidatorServer>> | undefined;
  let daemon: Daemon | undefined;
  afterEach(async () => {
    await daemon?.stop();
    daemon = undefined;
    await server?.close();
  });

  async function start(recordUnchanged?: boolean) {
    server = await startValidatorServer();
    const dir = tempDir();
    const config = validateConfig({
      dataDir: dir,
      fetch: { allowAddresses: [`127.0.0.1:${server.port}`] },
      politeness: { minDelayMs: 0 },
      retry: { maxAttempts: 1 },
      jobs: [
        {
          id: 'c',
          seeds: [`${server.url}/`],
          robots: false,
          recrawlIntervalMs: 300,
          ...(recordUnchanged !== undefined ? { recordUnchanged } : {}),
          extract: { fields: { title: { selector: 'h1.title' } } },
        },
      ],
    });
    const logger = createLogger({ level: 'error', instanceId: 't', silent: true });
    daemon = await createDaemon(config, { once: false, logger });
    void daemon.run();
    return { dir, d: daemon, s: server };
  }

  it('sends the stored validators back, records a 304 as unchanged with the previous fields, and counts it', async () => {
    const { dir, d, s } = await start();
    let links = 0;
    d.events.on('links', () => links++);
    const cycles = (path: string) => s.seen.filter((x) => x.path === path).length;
    // Two recrawls of each page after the first fetch.
    await waitFor(() => ['/', '/strong', '/weak', '/lm', '/ignore'].every((p) => cycles(p) >= 3), '3 cycles');
    // The server has answered the third requests; the daemon records them a moment later.
    await waitFor(
      async () => metricSum(await d.metrics.registry.metrics(), 'crawld_unchanged_pages_total') >= 8,
      'the eight 304s recorded as unchanged',
    );
    const linksAfter = links;

    const of = (path: string) => s.seen.filter((x) => x.path === path);
    // First requests carry no validator.
    for (const p of ['/', '/strong', '/weak', '/lm', '/ignore'])
      expect(of(p)[0]).toMatchObject({ inm: undefined, ims: undefined });
    // Recrawls: strong and weak tags go back as received; Last-Modified alone as If-Modified-Since.
    expect(of('/strong')[1]).toMatchObject({ inm: '"s1"', ims: undefined, status: 304 });
    expect(of('/weak')[1]).toMatchObject({ inm: 'W/"w1"', ims: undefined, status: 304 });
    expect(of('/lm')[1]).toMatchObject({ inm: undefined, ims: LM, status: 304 });
    // A server that ignores them answers 200 each time: a normal record, no harm.
    expect(of('/ignore')[1]).toMatchObject({ inm: '"i"', ims: LM, status: 200 });
    // A 304 to a request without a validator is an error: dead-lettered, never a record.
    expect(of('/rogue')).toHaveLength(1);

    const recs = records(dir);
    const strong = recs.filter((r) => r.url === `${s.url}/strong`);
    expect(strong[0]).toMatchObject({ status: 200, fields: { title: 'strong 1' } });
    expect(strong[0]?.unchanged).toBeUndefined();
    expect(strong[1]).toMatchObject({
      status: 304,
      unchanged: true,
      bytes: 0,
      generation: 1,
      fields: { title: 'strong 1' },
      contentHash: strong[0]?.contentHash,
    });
    expect(recs.filter((r) => r.url === `${s.url}/ignore`).every((r) => r.status === 200)).toBe(true);
    expect(recs.some((r) => r.url === `${s.url}/rogue`)).toBe(false);
    // The root's 304 re-extracted no links: links events only came from 200s.
    const twoHundreds = s.seen.filter((x) => x.status === 200).length;
    expect(linksAfter).toBeLessThanOrEqual(twoHundreds);
    expect(readFileSync(join(dir, 'changes.jsonl'), 'utf8')).toBe('');

    const text = await d.metrics.registry.metrics();
    const notModified = s.seen.filter((x) => x.status === 304 && x.path !== '/rogue').length;
    expect(metricSum(text, 'crawld_unchanged_pages_total')).toBeGreaterThanOrEqual(8);
    expect(metricSum(text, 'crawld_unchanged_pages_total')).toBeLessThanOrEqual(notModified);
    expect(metricSum(text, 'crawld_requests_total', { status_class: '3xx' })).toBeGreaterThanOrEqual(9);
    // Each 304 of /strong, /weak, /lm saved the page's body (~4 KB), the root's its own.
    expect(metricSum(text, 'crawld_unchanged_bytes_saved_total')).toBeGreaterThan(8 * 4000);

    // The page changes: a 200 with new validators, a change record, and the next recrawl asks for the new tag.
    s.bump();
    await waitFor(() => of('/strong').some((x) => x.inm === '"s2"'), 'a recrawl with the new tag');
    const changes = readFileSync(join(dir, 'changes.jsonl'), 'utf8').trim().split('\n');
    expect(changes).toHaveLength(1);
    expect(JSON.parse(changes[0] ?? '{}')).toMatchObject({
      changes: { title: { old: 'strong 1', new: 'strong 2' } },
    });
  });

  it('writes no record for a 304 with recordUnchanged: false', async () => {
    const { dir, d, s } = await start(false);
    await waitFor(() => s.seen.filter((x) => x.path === '/strong' && x.status === 304).length >= 2, '2 304s');
    const recs = records(dir);
    expect(recs.some((r) => r.status === 304)).toBe(false);
    expect(recs.filter((r) => r.url === `${s.url}/strong`)).toHaveLength(1);
    expect(
      metricSum(await d.metrics.registry.metrics(), 'crawld_unchanged_pages_total'),
    ).toBeGreaterThanOrEqual(2);
  });
});
