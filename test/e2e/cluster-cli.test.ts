/**
 * The CLI side of a Redis frontier: `crawld crawl --frontier redis://...`, and
 * `crawld dlq list|redrive --frontier redis://...` on the shared dead letters.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { listDeadLetters, runCli, tempDir } from '../helpers/cli.js';
import { countByUrl, crawlOnceArgs, sitePages, useClusterFixture } from '../helpers/cluster.js';

const PAGES = 60;

const fx = useClusterFixture({ pages: PAGES });

it('crawl --frontier redis://... crawls through Redis; dlq --frontier lists and redrives', async () => {
  const frontier = `${fx.redis.url}/3`;
  const dir = tempDir();
  const crawl = await runCli(
    crawlOnceArgs([`${fx.origin}/`, `${fx.origin}/missing`], dir, ['--frontier', frontier]),
  );
  expect(crawl.code, crawl.stderr).toBe(0);
  expect(crawl.stdout).toMatch(new RegExp(`${PAGES} ok, 1 failed`));
  const counts = countByUrl([join(dir, 'results.jsonl')]);
  expect(sitePages(fx.origin, PAGES).filter((u) => !counts.has(u))).toEqual([]);

  // The frontier is in Redis database 3, not in the data dir.
  const dead = await listDeadLetters(['--frontier', frontier]);
  expect(dead.map((d) => d.url)).toEqual([`${fx.origin}/missing`]);
  const other = await runCli(['dlq', 'list', '--frontier', `${fx.redis.url}/4`]);
  expect(other.stdout).toBe('no dead letters\n');

  const redrive = await runCli(['dlq', 'redrive', '--frontier', frontier]);
  expect(redrive.code, redrive.stderr).toBe(0);
  expect(redrive.stdout).toBe('redriven: 1\n');
  expect((await runCli(['dlq', 'list', '--frontier', frontier])).stdout).toBe('no dead letters\n');
}, 60_000);

it('refuses a --frontier that is not a redis URL, and two sources for dlq (exit 2)', async () => {
  const bad = await runCli(['crawl', `${fx.origin}/`, '--frontier', 'http://127.0.0.1:6379/0']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--frontier: expected redis://HOST:PORT/DB');
  const both = await runCli(['dlq', 'list', '--frontier', `${fx.redis.url}/0`, '--data-dir', tempDir()]);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('give one of --api, --data-dir and --frontier');
});

it('exits 1 naming the unreachable Redis, without its password, and releases the data-dir lock', async () => {
  const dir = tempDir();
  const r = await runCli(
    crawlOnceArgs([`${fx.origin}/`], dir, ['--frontier', 'redis://user:hunter2secret@127.0.0.1:1/0']),
  );
  expect(r.code).toBe(1);
  expect(r.stderr).toContain('cannot reach the Redis frontier at redis://127.0.0.1:1/0');
  expect(r.stderr + r.stdout).not.toContain('hunter2secret');
  expect(existsSync(join(dir, 'crawld.lock')), 'lock left behind').toBe(false);
});
