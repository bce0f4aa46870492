import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, runCli, startCli, tempDir } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres-server.js';
import { pause, waitFor } from '../helpers/wait.js';

/**
 * A JSON API crawl end to end: a local API that pages with a cursor and wants a bearer token,
 * crawled by the real CLI into a real PostgreSQL. Every item lands once, and the token is
 * nowhere but in the requests.
 */

const TOKEN = `tok-${Math.random().toString(36).slice(2)}-SECRET`;

interface Api {
  readonly origin: string;
  /** Requests answered 401 (no or wrong token). */
  unauthorized: number;
  served: number;
  close(): Promise<void>;
}

/** GET /items?cursor=N: ITEMS items per page, next_cursor until the last page. */
async function startApi(pages: number, perPage: number, latencyMs = 0): Promise<Api> {
  const state = { unauthorized: 0, served: 0 };
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (req.headers.authorization !== `Bearer ${TOKEN}`) {
      state.unauthorized++;
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end('{"error":"unauthorized"}');
      return;
    }
    if (url.pathname !== '/items') {
      res.writeHead(404).end();
      return;
    }
    const page = Number(url.searchParams.get('cursor') ?? '0');
    const data = Array.from({ length: perPage }, (_, i) => {
      const id = page * perPage + i;
      return { id, name: `item ${id}`, price: { amount: id * 10, currency: 'EUR' } };
    });
    const body = JSON.stringify({ data, next_cursor: page + 1 < pages ? String(page + 1) : null });
    setTimeout(() => {
      state.served++;
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    }, latencyMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    get unauthorized() {
      return state.unauthorized;
    },
    get served() {
      return state.served;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  } as Api;
}

function writeConfig(dir: string, api: Api, extra: Record<string, unknown> = {}): string {
  const path = join(dir, 'crawld.json');
  const config = {
    dataDir: join(dir, 'data'),
    fetch: { allowAddresses: [api.origin.replace('http://', '')] },
    jobs: [
      {
        id: 'api',
        seeds: [`${api.origin}/items`],
        robots: false,
        // Every page of a cursor is one link deeper than the last.
        scope: { maxDepth: 1000 },
        // The secret stays in the environment: the file only names it.
        request: { headers: { Authorization: 'Bearer ${API_TOKEN}' } },
        extract: {
          type: 'json',
          items: '$.data',
          fields: { id: '$.id', name: '$.name', amount: '$.price.amount' },
          follow: [{ url: '/items?cursor={$.next_cursor}', priority: 0 }],
        },
      },
    ],
    ...extra,
  };
  writeFileSync(path, JSON.stringify(config, null, 2));
  return path;
}

/** Every file under dir, read as bytes and searched for the needle. */
function filesContaining(dir: string, needle: string): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name !== 'crawld.json' && readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  walk(dir);
  return hits;
}

describe('--sink', () => {
  it('refuses a URL that is not postgres:// with exit 2, without echoing it', async () => {
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--sink', 'mysql://root:hunter2@db/x', '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--sink: expected postgres:\/\/USER@HOST:PORT\/DB/);
    expect(r.stderr).not.toContain('hunter2');
  });
});

describe('JSON API crawl into PostgreSQL', () => {
  const postgres = usePostgres();

  it('pages through the cursor with the bearer token: every item once, the token nowhere', async () => {
    const api = await startApi(8, 5);
    try {
      // The API really wants the token.
      const anonymous = await fetch(`${api.origin}/items`);
      expect(anonymous.status).toBe(401);
      const dir = tempDir();
      const config = writeConfig(dir, api, {
        sinks: [{ kind: 'jsonl' }, { kind: 'postgres', url: postgres.server.url, table: 'api_items' }],
      });
      const port = await freePort();
      const daemon = startCli(
        ['run', '--config', config, '--http-port', String(port), '--log-level', 'debug'],
        {
          API_TOKEN: TOKEN,
        },
      );
      try {
        await waitFor(
          async () => {
            const r = await postgres.db.query('SELECT count(*)::int AS n FROM api_items');
            return r.rows[0].n >= 40;
          },
          { what: '40 rows in api_items', deadlineMs: 30_000 },
        );
        const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        expect(metrics).toMatch(/crawld_sink_records_written_total\{sink="postgres"\} 40\b/);
        expect(metrics).toMatch(/crawld_sink_batches_total\{sink="postgres"\} \d+/);
        expect(metrics).not.toContain(TOKEN);
        expect(metrics).not.toContain(TOKEN.slice(4, 14));
      } finally {
        daemon.child.kill('SIGTERM');
      }
      expect(await daemon.exited).toBe(0);

      const rows = await postgres.db.query<{
        url: string;
        item: number;
        fields: { id: number; name: string; amount: number };
      }>('SELECT url, item, fields FROM api_items ORDER BY (fields->>$1)::int', ['id']);
      expect(rows.rows.map((r) => r.fields.id)).toEqual(Array.from({ length: 40 }, (_, i) => i));
      expect(rows.rows[7]!.fields).toEqual({ id: 7, name: 'item 7', amount: 70 });
      expect(new Set(rows.rows.map((r) => r.url)).size).toBe(8);
      expect(api.unauthorized).toBe(1);
      expect(api.served).toBe(8);

      const everything = await postgres.db.query('SELECT row_to_json(t)::text AS j FROM api_items t');
      for (const r of everything.rows) expect(r.j).not.toContain(TOKEN);
      const logs = daemon.stdout() + daemon.stderr();
      expect(logs.length).toBeGreaterThan(0);
      expect(logs).not.toContain(TOKEN);
      expect(filesContaining(dir, TOKEN)).toEqual([]);
      // The JSONL sink holds the same items, grouped per page.
      const jsonl = readFileSync(join(dir, 'data', 'results.jsonl'), 'utf8')
        .trim()
        .split('\n');
      expect(jsonl).toHaveLength(8);
      expect(jsonl.flatMap((l) => (JSON.parse(l) as { items: unknown[] }).items)).toHaveLength(40);
    } finally {
      await api.close();
    }
  }, 60_000);

  it('crawl --sink: SIGKILL mid-crawl and a restart still give exactly one row per item', async () => {
    const api = await startApi(30, 5, 40);
    try {
      const dir = tempDir();
      const config = writeConfig(dir, api);
      await postgres.db.query('DROP TABLE IF EXISTS crawld_results');
      const args = ['crawl', `${api.origin}/items`, '--config', config, '--sink', postgres.server.url];
      const first = startCli(args, { API_TOKEN: TOKEN });
      await waitFor(
        async () => {
          const r = await postgres.db.query('SELECT count(*)::int AS n FROM crawld_results');
          return r.rows[0].n >= 30;
        },
        { what: '30 rows in crawld_results', deadlineMs: 30_000 },
      );
      first.child.kill('SIGKILL');
      expect(await first.exited).toBe('SIGKILL');
      const mid = (await postgres.db.query('SELECT count(*)::int AS n FROM crawld_results')).rows[0].n;
      expect(mid).toBeLessThan(150);

      const second = await runCli([...args, '--once'], { API_TOKEN: TOKEN }, 60_000);
      expect(second.code).toBe(0);
      expect(second.stdout).toContain('postgres://127.0.0.1:');
      expect(second.stdout + second.stderr).not.toContain(TOKEN);
      const r = await postgres.db.query(
        `SELECT count(*)::int AS n, count(DISTINCT (url, item))::int AS distinct_items,
                count(DISTINCT fields->>'id')::int AS ids FROM crawld_results`,
      );
      expect(r.rows[0]).toEqual({ n: 150, distinct_items: 150, ids: 150 });
    } finally {
      await api.close();
    }
  }, 90_000);

  it('a database stopped mid-crawl holds the crawl back (bounded) and loses nothing', async () => {
    const api = await startApi(30, 5, 20);
    try {
      const dir = tempDir();
      const table = 'paused_items';
      const config = writeConfig(dir, api, {
        concurrency: { global: 4 },
        sinks: [
          {
            kind: 'postgres',
            url: postgres.server.url,
            table,
            batchSize: 5,
            flushIntervalMs: 20,
            maxBuffer: 10,
          },
        ],
      });
      const daemon = startCli(['run', '--config', config], { API_TOKEN: TOKEN });
      const rows = async () =>
        (await postgres.db.query(`SELECT count(*)::int AS n FROM ${table}`)).rows[0].n as number;
      try {
        await waitFor(async () => (await rows()) >= 25, { what: '25 rows', deadlineMs: 30_000 });
        await postgres.db.end();
        await postgres.server.pause();
        try {
          const servedAtPause = api.served;
          await pause(
            3000,
            'nothing may happen: postgres is paused, so fetching stops once the buffer is full',
          );
          // Without backpressure the 20 ms pages would all be fetched by now.
          expect(api.served - servedAtPause).toBeLessThanOrEqual(8);
          expect(api.served).toBeLessThan(30);
        } finally {
          await postgres.server.resume();
        }
        await postgres.reconnect();
        await waitFor(async () => (await rows()) >= 150, { what: '150 rows', deadlineMs: 30_000 });
      } finally {
        daemon.child.kill('SIGTERM');
      }
      expect(await daemon.exited).toBe(0);
      const r = await postgres.db.query(
        `SELECT count(*)::int AS n, count(DISTINCT (url, item))::int AS distinct_items FROM ${table}`,
      );
      expect(r.rows[0]).toEqual({ n: 150, distinct_items: 150 });
      expect(daemon.stdout() + daemon.stderr()).not.toContain(TOKEN);
    } finally {
      await api.close();
    }
  }, 90_000);
});
