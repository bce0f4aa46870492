import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { countLines, runCli, startCli, tempDir } from '../helpers/cli.js';
import { type FaultSite, startFaultSite } from '../helpers/fault-site.js';
import { pause, waitFor } from '../helpers/wait.js';

const PAGES = 10;
const RETRY_AFTER_S = 5;

/**
 * SIGTERM while the only host is paused by a Retry-After: nothing is in flight, the process
 * only waits, so it must stop at once (exit 0, not after the pause), with the waiting task
 * persisted; the next run resumes and still honours the Retry-After.
 */
describe('SIGTERM while everything waits', () => {
  let site: FaultSite | undefined;
  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  it('exits 0 before the pause ends, and the next run finishes the crawl after the pause', async () => {
    site = await startFaultSite({
      pages: PAGES,
      fault: (r) =>
        r.path === '/p/3' && r.nth === 1
          ? { status: 429, headers: { 'retry-after': String(RETRY_AFTER_S) } }
          : 'ok',
    });
    const dir = tempDir('crawld-sigterm-wait-');
    const configFile = join(dir, 'crawld.yaml');
    writeFileSync(
      configFile,
      [`dataDir: ${join(dir, 'data')}`, 'fetch: { allowPrivateNetworks: true }'].join('\n'),
    );
    const args = ['crawl', `${site.origin}/`, '--once', '--config', configFile];
    const results = join(dir, 'data', 'results.jsonl');

    const first = startCli(args);
    // The 429 came and nothing is in flight: every remaining task waits for the host's pause.
    await waitFor(() => site!.log.some((r) => r.answer === 429), 'a 429 answer');
    const throttledAt = site.log.find((r) => r.answer === 429)!.atMs;
    // Requests already in flight with the 429 land; then nothing more while the host is paused.
    await pause(500, 'nothing may happen: no request while the host is paused, no exit while it waits');
    const before = countLines(results);
    expect(before).toBeLessThan(PAGES);
    // Still waiting, not gone (a silent exit would have ended it already).
    expect(first.child.exitCode).toBe(null);
    first.child.kill('SIGTERM');
    expect(await first.exited, first.stderr()).toBe(0);
    // Gone while the host's pause still held (no-timing-assertions.test.ts allows this one: a
    // waiting daemon and a stopped one differ only in when they exit; 4.5 s of slack).
    const exitedAt = site.now();
    expect(exitedAt).toBeLessThan(throttledAt + RETRY_AFTER_S * 1000);
    // No request started after the 429 (the pause held), and the summary was printed.
    expect(site.log.filter((r) => r.atMs > throttledAt + 200).length).toBe(0);
    expect(first.stdout()).toMatch(/crawld: done in/);

    // The next run resumes from the data dir: the rest of the site, /p/3 after its pause.
    const second = await runCli(args, {}, 60_000);
    expect(second.code, second.stderr).toBe(0);
    expect(countLines(results)).toBe(PAGES);
    const p3 = site.log.filter((r) => r.path === '/p/3');
    expect(p3.map((r) => r.answer)).toEqual([429, 'ok']);
    expect(p3[1]!.atMs - p3[0]!.atMs).toBeGreaterThanOrEqual(RETRY_AFTER_S * 1000 - 100);
    // Every page once with 200, plus the one 429.
    expect(site.log.length).toBe(PAGES + 1);
  });
});
