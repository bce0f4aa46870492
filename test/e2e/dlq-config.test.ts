import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTarget } from '../helpers/admin.js';
import { runCli, tempDir, writeJsonConfig } from '../helpers/cli.js';

/**
 * `crawld dlq --config FILE` finds the frontier where the config put it (frontier.path,
 * outside the data dir here), as the daemon does: both open it through openFrontier.
 */
let target: Awaited<ReturnType<typeof startTarget>>;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(async () => {
  await target.close();
});

it("lists and redrives the dead letters of the frontier at the config's frontier.path", async () => {
  const dir = tempDir('crawld-dlq-config-');
  const dataDir = join(dir, 'data');
  const config = writeJsonConfig(dir, {
    dataDir,
    frontier: { kind: 'sqlite', path: join(dir, 'elsewhere', 'queue.db') },
    fetch: { allowPrivateNetworks: true },
    retry: { maxAttempts: 1 },
    jobs: [{ id: 'main', seeds: [`${target.origin}/gone/seed`], robots: false }],
  });
  const crawl = await runCli(['run', '--config', config, '--once', '--no-progress']);
  expect(crawl.code, crawl.stderr).toBe(0);

  // The data dir holds no frontier: --data-dir cannot find it, --config can.
  const byDir = await runCli(['dlq', 'list', '--data-dir', dataDir]);
  expect(byDir.code).toBe(2);
  expect(byDir.stderr).toMatch(/--data-dir: no frontier at .*frontier\.db/);
  const list = await runCli(['dlq', 'list', '--json', '--config', config]);
  expect(list.code, list.stderr).toBe(0);
  const dead = list.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { url: string; reason: string });
  expect(dead).toMatchObject([{ url: `${target.origin}/gone/seed`, reason: 'http_404' }]);

  const redrive = await runCli(['dlq', 'redrive', '--config', config]);
  expect(redrive).toMatchObject({ code: 0, stdout: 'redriven: 1\n' });
  expect((await runCli(['dlq', 'list', '--config', config])).stdout).toBe('no dead letters\n');
}, 60_000);

it('refuses --config with another source, a missing frontier and a memory frontier (exit 2)', async () => {
  const dir = tempDir('crawld-dlq-config-');
  const sqlite = join(dir, 'sqlite.json');
  writeFileSync(
    sqlite,
    JSON.stringify({ dataDir: join(dir, 'data'), frontier: { path: join(dir, 'none.db') } }),
  );
  const memory = join(dir, 'memory.json');
  writeFileSync(memory, JSON.stringify({ frontier: { kind: 'memory' } }));
  const cases: [string[], RegExp][] = [
    [['dlq', 'list', '--config', sqlite, '--data-dir', dir], /give one of --api, --data-dir and --frontier/],
    [['dlq', 'list', '--config', sqlite], /--config: no frontier at .*none\.db/],
    [['dlq', 'redrive', '--config', memory], /--config: a memory frontier keeps nothing/],
    [['dlq', 'list', '--config', join(dir, 'missing.json')], /cannot read config file/],
  ];
  for (const [args, re] of cases) {
    const r = await runCli(args);
    expect(r.code, args.join(' ')).toBe(2);
    expect(r.stderr).toMatch(re);
  }
}, 60_000);
