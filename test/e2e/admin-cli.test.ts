import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTarget } from '../helpers/admin.js';
import { readJsonl, runCli, startCli, tempDir, writeJsonConfig } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const TOKEN = 'e2e-admin-token-0123456789abcdef';

/** An address where nothing listens: a port just freed. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

/** `crawld submit` against a running daemon; `crawld dlq` on its data dir once stopped. */
describe('admin CLI', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let dir: string;
  let config: string;
  let tokenFile: string;

  beforeAll(async () => {
    target = await startTarget();
    dir = tempDir('crawld-admin-cli-');
    tokenFile = join(dir, 'admin.token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    config = writeJsonConfig(dir, {
      dataDir: join(dir, 'data'),
      log: { level: 'info' },
      http: { port: 0, adminTokenFile: tokenFile },
      fetch: { allowPrivateNetworks: true },
      retry: { maxAttempts: 1 },
      jobs: [{ id: 'main', seeds: [`${target.origin}/gone/seed`], robots: false }],
    });
  });
  afterAll(async () => {
    await target.close();
  });

  it('submits to a running daemon, then lists and redrives dead letters on its data dir', async () => {
    const dataDir = join(dir, 'data');
    const daemon = startCli(['run', '--config', config]);
    const api = (await daemon.waitFor(/"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1]!;
    try {
      const ok = await runCli([
        'submit',
        `${target.origin}/ok/x`,
        `${target.origin}/gone/x`,
        '--api',
        api,
        '--token-file',
        tokenFile,
      ]);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      expect(ok.stdout).toBe('submitted: 2 added, 0 duplicates, 0 dropped\n');

      // Refused by the daemon's validation: exit 2 with the field named.
      const unknownJob = await runCli(['submit', `${target.origin}/ok/y`, '--api', api, '--job', 'ghost'], {
        CRAWLD_ADMIN_TOKEN: TOKEN,
      });
      expect(unknownJob.code).toBe(2);
      expect(unknownJob.stderr).toBe('crawld: invalid request\n  job: unknown job "ghost"\n');

      const wrong = await runCli(['submit', `${target.origin}/ok/y`, '--api', api], {
        CRAWLD_ADMIN_TOKEN: 'not-the-token-0123456789',
      });
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('invalid token');
      expect(wrong.stderr).not.toContain(TOKEN);

      const noToken = await runCli(['submit', `${target.origin}/ok/y`, '--api', api], {
        CRAWLD_ADMIN_TOKEN: '',
      });
      expect(noToken.code).toBe(2);
      expect(noToken.stderr).toMatch(/no admin token/);

      await waitFor(
        () => readJsonl(join(dataDir, 'results.jsonl')).some((r) => r.url === `${target.origin}/ok/x`),
        'the submitted page’s record',
      );
      await waitFor(async () => {
        const body = (await (await fetch(`${api}/api/dlq`)).json()) as { items: unknown[] };
        return body.items.length === 2;
      }, 'two dead letters in /api/dlq');
      const viaApi = await runCli(['dlq', 'list', '--json', '--api', api]);
      expect(viaApi.code).toBe(0);
      expect(viaApi.stdout.trim().split('\n')).toHaveLength(2);

      // The running daemon holds the data dir: refused, with a hint.
      const locked = await runCli(['dlq', 'list', '--data-dir', dataDir]);
      expect(locked.code).toBe(1);
      expect(locked.stderr).toMatch(/in use by process \d+: stop the daemon first, or use --api URL/);
    } finally {
      daemon.child.kill('SIGTERM');
    }
    expect(await daemon.exited).toBe(0);

    const list = async () => {
      const r = await runCli(['dlq', 'list', '--json', '--data-dir', dataDir]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      return r.stdout
        .split('\n')
        .filter((l) => l !== '')
        .map(
          (l) => JSON.parse(l) as { id: string; url: string; job: string; reason: string; attempts: number },
        );
    };
    const dead = await list();
    expect(dead.map((d) => d.url).sort()).toEqual([`${target.origin}/gone/seed`, `${target.origin}/gone/x`]);
    expect(dead.every((d) => d.job === 'main' && d.reason === 'http_404' && d.attempts === 1)).toBe(true);

    const table = await runCli(['dlq', 'list', '--data-dir', dataDir]);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+ATTEMPTS\s+REASON\s+URL$/);
    expect(table.stdout).toContain(`http_404  ${target.origin}/gone/`);

    const one = await runCli(['dlq', 'redrive', '--data-dir', dataDir, '--id', dead[0]!.id]);
    expect(one).toMatchObject({ code: 0, stdout: 'redriven: 1\n' });
    expect(await list()).toHaveLength(1);
    const rest = await runCli(['dlq', 'redrive', '--data-dir', dataDir]);
    expect(rest).toMatchObject({ code: 0, stdout: 'redriven: 1\n' });
    expect(await list()).toEqual([]);
    expect((await runCli(['dlq', 'list', '--data-dir', dataDir])).stdout).toBe('no dead letters\n');

    // The next run fetches the redriven pages again (404 again, so dead again).
    const again = await runCli(['run', '--config', config, '--once']);
    expect(again.code).toBe(0);
    expect((await list()).map((d) => d.url).sort()).toEqual(dead.map((d) => d.url).sort());
  }, 90_000);

  it('refuses bad usage with exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['submit'], /give at least one URL/],
      [['submit', 'ftp://x/'], /not an absolute http\(s\) URL/],
      [['dlq'], /expected 'list' or 'redrive'/],
      [
        ['dlq', 'list', '--api', 'http://127.0.0.1:1', '--data-dir', '/tmp'],
        /give one of --api, --data-dir and --frontier/,
      ],
      [['dlq', 'list', '--data-dir', join(dir, 'nowhere')], /no frontier at/],
      [['dlq', 'list', '--limit', '0', '--data-dir', join(dir, 'data')], /--limit/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
    const down = await runCli(['dlq', 'list', '--api', await closedPort()]);
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(/cannot reach the admin API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  }, 60_000);
});
