import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, readJsonl, runCli, startCli, tempDir, until } from '../helpers/cli.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.js';

/**
 * kill -9 in the middle of a concurrent crawl writing to PostgreSQL (and the default JSONL),
 * then the same command again: one row per page, none twice, none missing.
 */
describe('crawl --sink postgres resumes after SIGKILL', () => {
  let site: CliProcess;
  let origin: string;
  let server: PostgresServer;
  let db: pg.Client;

  beforeAll(async () => {
    site = startCli(['site', '--port', '0', '--pages', '600', '--latency-ms', '20']);
    origin = (await site.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/))[1]!;
    server = await startPostgres();
    db = new pg.Client({ connectionString: server.url });
    await db.connect();
  }, 60_000);
  afterAll(async () => {
    await db?.end();
    await server?.stop();
    site.child.kill('SIGTERM');
    await site.exited;
  });

  it('ends with exactly one row per page', async () => {
    const dir = tempDir();
    const args = [
      'crawl',
      `${origin}/`,
      '--data-dir',
      dir,
      '--allow-private-networks',
      '--max-concurrency',
      '8',
      '--sink',
      server.url,
    ];
    const rows = async () =>
      (await db.query('SELECT count(*)::int AS n FROM crawld_results')).rows[0].n as number;
    const first = startCli(args);
    await until(async () => (await rows()) >= 150, 30_000);
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(await rows()).toBeLessThan(600);
    {
      const pgKeys = new Set((await db.query('SELECT record_key FROM crawld_results')).rows.map((x) => x.record_key));
      const jl = readJsonl(join(dir, 'results.jsonl')).map((x) => `${x.taskId}#${x.generation}`);
      console.log('jsonl', jl.length, 'pg', pgKeys.size, 'jsonl-not-pg', jl.filter((k) => !pgKeys.has(k)).length);
    }

    const second = await runCli([...args, '--once', '--log-level', 'info'], {}, 90_000);
    console.log(second.stderr.split('\n').filter((l) => l.includes('recover')).join('\n'));
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/\d+ ok, 0 failed, 0 skipped/);
    const r = await db.query(
      'SELECT count(*)::int AS n, count(DISTINCT url)::int AS urls, count(DISTINCT record_key)::int AS keys FROM crawld_results',
    );
    expect(r.rows[0]).toEqual({ n: 600, urls: 600, keys: 600 });
    const jsonl = readJsonl(join(dir, 'results.jsonl')).map((x) => x.url as string);
    expect(jsonl.length).toBe(600);
    expect(new Set(jsonl).size).toBe(600);
  }, 120_000);
});
