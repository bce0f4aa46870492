import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines, readJsonl, runCli, startCli, tempDir, useSiteCli } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

/**
 * The promise of the embedded default: kill -9 in the middle of a crawl, run again on the
 * same data dir, and the results hold every page exactly once.
 */
describe('crawl resumes after SIGKILL', () => {
  const site = useSiteCli(['--pages', '2000', '--latency-ms', '20']);

  it('ends with exactly 2000 distinct URLs, none twice', async () => {
    const dir = tempDir();
    const results = join(dir, 'results.jsonl');
    const args = [
      'crawl',
      `${site.origin}/`,
      '--data-dir',
      dir,
      '--allow-private-networks',
      '--max-concurrency',
      '8',
    ];
    const first = startCli(args);
    await waitFor(() => countLines(results) >= 300, { what: '300 pages', deadlineMs: 30_000 });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    const before = countLines(results);
    expect(before).toBeLessThan(2000);

    const second = await runCli([...args, '--once'], {}, 90_000);
    expect(second.stderr).not.toMatch(/unexpected error/);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/\d+ ok, 0 failed, 0 skipped/);

    const records = readJsonl(results);
    const urls = records.map((r) => r.url as string);
    expect(new Set(urls).size).toBe(2000);
    expect(urls.length).toBe(2000);
    for (const r of records.slice(0, 50)) {
      expect(r.status).toBe(200);
      expect(typeof r.fetchedAt).toBe('string');
      expect(r.contentHash).toMatch(/^[0-9a-f]{64}$/);
      expect((r.fields as Record<string, unknown>).title).toMatch(/Demo Shop/);
    }
  }, 120_000);
});
