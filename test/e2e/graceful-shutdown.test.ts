import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, freePort, readJsonl, runCli, startCli, tempDir, useSiteCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/**
 * SIGTERM during a crawl of a slow site: readiness turns 503 at once, in-flight requests get
 * the drain timeout, the rest are handed back uncharged, exit 0; a restart finishes the
 * crawl with every page exactly once.
 */
describe('graceful shutdown', () => {
  const site = useSiteCli(['--pages', '30', '--latency-ms', '2000']);

  it('drains to the deadline, exits 0, and loses nothing', async () => {
    const dir = tempDir();
    const port = await freePort();
    const configFile = join(dir, 'crawld.yaml');
    writeFileSync(
      configFile,
      [
        `dataDir: ${join(dir, 'data')}`,
        `http: { port: ${port} }`,
        'shutdown: { drainTimeoutMs: 1000 }',
        'fetch: { allowPrivateNetworks: true }',
        'concurrency: { initialPerHost: 8, maxPerHost: 8 }',
        'jobs:',
        `  - id: slow\n    seeds: ['${site.origin}/']`,
      ].join('\n'),
    );
    const daemon = startCli(['run', '--config', configFile]);
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200,
      'the daemon ready',
    );
    const results = join(dir, 'data', 'results.jsonl');
    // Wait until a few pages are done and more are in flight (each takes 2 s).
    await waitFor(() => countLines(results) >= 3, { what: '3 pages', deadlineMs: 30_000 });

    daemon.child.kill('SIGTERM');
    // The HTTP server stays up during the drain and reports not ready.
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 503,
      'readyz 503 during the drain',
    );
    expect(await daemon.exited).toBe(0);
    const log = daemon.stdout();
    expect(log).toContain('shutdown: draining');
    // Cut at the drain deadline (1 s), not waited for (2 s a page): requests were aborted.
    expect(log).toMatch(/"aborted":[1-9].*"message":"shutdown: drained"/);
    expect(log).toContain('shutdown: frontier closed');

    const again = await runCli(['run', '--config', configFile, '--once'], {}, 120_000);
    expect(again.code).toBe(0);
    const urls = readJsonl(results).map((r) => r.url as string);
    expect(urls.length).toBe(30);
    expect(new Set(urls).size).toBe(30);
  }, 150_000);
});
