import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, freePort, startCli, tempDir, useSiteCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/** SIGHUP re-reads the config: an invalid one is refused and the old one kept. */
describe('config reload on SIGHUP', () => {
  const site = useSiteCli(['--pages', '30']);

  it('refuses an invalid config, then applies a valid one without a restart', async () => {
    const dir = tempDir();
    const port = await freePort();
    const file = join(dir, 'crawld.yaml');
    const base = [
      `dataDir: ${join(dir, 'data')}`,
      `http: { port: ${port} }`,
      'fetch: { allowPrivateNetworks: true }',
    ];
    writeFileSync(file, [...base, 'jobs: []'].join('\n'));
    const daemon = startCli(['run', '--config', file]);
    try {
      await waitFor(async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 'the daemon healthy');

      writeFileSync(file, [...base, 'concurrency: { global: -1 }', 'jobs: []'].join('\n'));
      daemon.child.kill('SIGHUP');
      await daemon.waitFor(/concurrency\.global.*new config refused/);
      expect((await fetch(`http://127.0.0.1:${port}/healthz`)).ok).toBe(true);

      writeFileSync(
        file,
        [
          ...base,
          'log: { level: debug }',
          "rateLimits: { hosts: [{ hosts: '*', ratePerSec: 200 }] }",
          `jobs:\n  - id: added\n    seeds: ['${site.origin}/']`,
        ].join('\n'),
      );
      daemon.child.kill('SIGHUP');
      const applied = await daemon.waitFor(/"applied":\[([^\]]*)\].*"message":"config reloaded"/);
      expect(applied[1]).toContain('"rateLimits"');
      expect(applied[1]).toContain('"jobs"');
      expect(applied[1]).toContain('"log"');
      // The job added by the reload is crawled by the running daemon.
      await waitFor(() => countLines(join(dir, 'data', 'results.jsonl')) === 30, {
        what: '30 pages',
        deadlineMs: 30_000,
      });
    } finally {
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    }
  }, 60_000);
  it('re-reads a rotated admin token file and shows reloaded jobs on /api/jobs', async () => {
    const dir = tempDir();
    const port = await freePort();
    const file = join(dir, 'crawld.yaml');
    const tokenFile = join(dir, 'token');
    const [tokenA, tokenB] = ['token-a-0123456789abcdef', 'token-b-0123456789abcdef'];
    writeFileSync(tokenFile, tokenA);
    const base = [
      `dataDir: ${join(dir, 'data')}`,
      `http: { port: ${port}, adminTokenFile: ${tokenFile} }`,
      'fetch: { allowPrivateNetworks: true }',
    ];
    writeFileSync(file, [...base, 'jobs: []'].join('\n'));
    const api = `http://127.0.0.1:${port}`;
    const pause = (token: string) =>
      fetch(`${api}/api/pause`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
    const daemon = startCli(['run', '--config', file]);
    try {
      await waitFor(async () => (await fetch(`${api}/healthz`)).ok, 'the daemon healthy');
      expect((await pause(tokenA)).status).toBe(200);
      expect((await fetch(`${api}/api/jobs`).then((r) => r.json())) as unknown).toEqual({ jobs: [] });

      writeFileSync(tokenFile, tokenB);
      writeFileSync(file, [...base, `jobs:\n  - id: later\n    seeds: ['${site.origin}/']`].join('\n'));
      daemon.child.kill('SIGHUP');
      await daemon.waitFor(/"message":"config reloaded"/);
      expect((await pause(tokenA)).status).toBe(401);
      expect((await pause(tokenB)).status).toBe(200);
      const jobs = (await fetch(`${api}/api/jobs`).then((r) => r.json())) as { jobs: { id: string }[] };
      expect(jobs.jobs.map((j) => j.id)).toEqual(['later']);
      expect(daemon.stdout() + daemon.stderr()).not.toContain(tokenB);
    } finally {
      daemon.child.kill('SIGTERM');
      expect(await daemon.exited).toBe(0);
    }
  }, 60_000);
});
