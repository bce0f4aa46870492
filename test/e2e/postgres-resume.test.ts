import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonl, runCli, startCli, tempDir, useSiteCli, writeJsonConfig } from '../helpers/cli.js';
import { usePostgres } from '../helpers/postgres-server.js';
import { waitFor } from '../helpers/wait.js';

/**
 * kill -9 in the middle of a concurrent crawl writing to PostgreSQL (and the default JSONL),
 * then the same command again: one row per page, none twice, none missing.
 */
describe('crawl --sink postgres resumes after SIGKILL', () => {
  const site = useSiteCli(['--pages', '600', '--latency-ms', '20']);
  const postgres = usePostgres();

  it('ends with exactly one row per page', async () => {
    const dir = tempDir();
    // A long flush interval widens the window in which a page's JSONL line is written and its
    // row is not: a kill there must not make a second line after the restart. --data-dir (below)
    // takes the place of the config's dataDir (dir/data).
    const config = writeJsonConfig(dir, {
      log: { level: 'warn' },
      sinks: [
        { kind: 'jsonl' },
        { kind: 'postgres', url: postgres.server.url, flushIntervalMs: 500, batchSize: 1000 },
      ],
    });
    const args = [
      'crawl',
      `${site.origin}/`,
      '--config',
      config,
      '--data-dir',
      dir,
      '--allow-private-networks',
      '--max-concurrency',
      '8',
      '--sink',
      postgres.server.url,
    ];
    const rows = async () =>
      (await postgres.db.query('SELECT count(*)::int AS n FROM crawld_results')).rows[0].n as number;
    const first = startCli(args);
    await waitFor(async () => (await rows()) >= 150, { what: '150 rows in postgres', deadlineMs: 30_000 });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    expect(await rows()).toBeLessThan(600);

    const second = await runCli([...args, '--once'], {}, 90_000);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/\d+ ok, 0 failed, 0 skipped/);
    const r = await postgres.db.query(
      'SELECT count(*)::int AS n, count(DISTINCT url)::int AS urls, count(DISTINCT record_key)::int AS keys FROM crawld_results',
    );
    expect(r.rows[0]).toEqual({ n: 600, urls: 600, keys: 600 });
    const jsonl = readJsonl(join(dir, 'results.jsonl')).map((x) => x.url as string);
    expect(jsonl.length).toBe(600);
    expect(new Set(jsonl).size).toBe(600);
  }, 120_000);
});
