/**
 * The CLI on a real three-master Redis Cluster: `crawl --frontier redis-cluster://...`,
 * `dlq list|redrive --frontier redis-cluster://...`, and a cluster none of whose nodes
 * answers (exit 2, naming the nodes).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { freePort, listDeadLetters, runCli, tempDir } from '../helpers/cli.js';
import { countByUrl, crawlOnceArgs, sitePages, useClusterFixture } from '../helpers/cluster.js';

const PAGES = 60;

const fx = useClusterFixture({ pages: PAGES, redisCluster: {} });

it('crawl --frontier redis-cluster://... crawls through the cluster; dlq --frontier lists and redrives', async () => {
  const frontier = fx.redisCluster.url;
  const dir = tempDir();
  const crawl = await runCli(
    crawlOnceArgs([`${fx.origin}/`, `${fx.origin}/missing`], dir, ['--frontier', frontier]),
  );
  expect(crawl.code, crawl.stderr).toBe(0);
  expect(crawl.stdout).toMatch(new RegExp(`${PAGES} ok, 1 failed`));
  const counts = countByUrl([join(dir, 'results.jsonl')]);
  expect(sitePages(fx.origin, PAGES).filter((u) => !counts.has(u))).toEqual([]);
  // The frontier lives in the cluster: its keys are there, on the masters.
  expect(
    (await fx.redisCluster.keysPerNode()).flat().filter((k) => k.startsWith('crawld:{')).length,
  ).toBeGreaterThan(0);

  const dead = await listDeadLetters(['--frontier', frontier]);
  expect(dead.map((d) => d.url)).toEqual([`${fx.origin}/missing`]);
  const other = await runCli(['dlq', 'list', '--frontier', frontier, '--key-prefix', 'other']);
  expect(other.stdout).toBe('no dead letters\n');
  const redrive = await runCli(['dlq', 'redrive', '--frontier', frontier]);
  expect(redrive.code, redrive.stderr).toBe(0);
  expect(redrive.stdout).toBe('redriven: 1\n');
  expect((await runCli(['dlq', 'list', '--frontier', frontier])).stdout).toBe('no dead letters\n');
}, 90_000);

it('refuses a malformed redis-cluster:// URL (exit 2)', async () => {
  const bad = await runCli(['crawl', `${fx.origin}/`, '--frontier', 'redis-cluster://127.0.0.1']);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain('--frontier: expected redis://HOST:PORT/DB or redis-cluster://HOST:PORT');
});

it('exits 2 naming the nodes when no node of the cluster answers, and releases the data-dir lock', async () => {
  const dir = tempDir();
  const nodes = [`127.0.0.1:${await freePort()}`, `127.0.0.1:${await freePort()}`];
  const r = await runCli(
    crawlOnceArgs([`${fx.origin}/`], dir, ['--frontier', `redis-cluster://${nodes.join(',')}`]),
  );
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toContain(
    `frontier.nodes: cannot reach any node of the Redis Cluster (${nodes.join(', ')})`,
  );
  expect(existsSync(join(dir, 'crawld.lock')), 'lock left behind').toBe(false);
  const dlq = await runCli(['dlq', 'list', '--frontier', `redis-cluster://${nodes.join(',')}`]);
  expect(dlq.code).toBe(2);
  expect(dlq.stderr).toContain(
    `--frontier: cannot reach any node of the Redis Cluster (${nodes.join(', ')})`,
  );
}, 60_000);
