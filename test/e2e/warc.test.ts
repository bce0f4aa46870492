/**
 * WARC archives through the CLI as a user runs it (`crawl --once`, no --http-port): a crawl of
 * the demo site leaves whole, indexed files; SIGKILL mid-crawl then a resume leaves no `.open`
 * file, every file whole to its end and every page of the results archived.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  countLines,
  readJsonl,
  runCli,
  startCli,
  tempDir,
  useSiteCli,
  writeJsonConfig,
} from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';
import { parseHttp, readWarcGz, sha1Of, type TestRecord, warcFiles } from '../helpers/warc.js';

function archive(dir: string): TestRecord[] {
  return warcFiles(dir).flatMap((f) => {
    const records = readWarcGz(f);
    expect(records[0]!.fields['warc-type']).toBe('warcinfo');
    return records;
  });
}

/** URLs with a 200 response record whose payload digest is right. */
function archivedPages(records: readonly TestRecord[]): Set<string> {
  const out = new Set<string>();
  for (const r of records) {
    if (r.fields['warc-type'] !== 'response') continue;
    const http = parseHttp(r.block);
    expect(r.fields['warc-payload-digest']).toBe(sha1Of(http.body));
    if (http.startLine.includes(' 200 ')) out.add(r.fields['warc-target-uri']!);
  }
  return out;
}

describe('WARC sink through the CLI', () => {
  const site = useSiteCli(['--pages', '1500', '--latency-ms', '20']);

  function config(dir: string): string {
    return writeJsonConfig(dir, {
      sinks: [{ kind: 'jsonl' }, { kind: 'warc', maxFileBytes: 1_000_000 }],
      jobs: [{ id: 'demo', seeds: [`${site.origin}/`] }],
    });
  }

  it('check-config exits 2 naming each bad field of a warc sink', async () => {
    const dir = tempDir();
    const bad = writeJsonConfig(dir, {
      sinks: [{ kind: 'warc', maxFileBytes: 100, gzipLevel: 12, prefix: 'a/b', revisits: 'yes' }],
      jobs: [{ id: 'demo', seeds: ['http://example.com/'] }],
    });
    const run = await runCli(['check-config', bad]);
    expect(run.code).toBe(2);
    for (const field of ['maxFileBytes', 'gzipLevel', 'prefix', 'revisits']) {
      expect(run.stderr).toContain(`sinks[0].${field}:`);
    }
    const twice = writeJsonConfig(
      dir,
      {
        sinks: [{ kind: 'warc' }, { kind: 'warc', jobs: ['demo'] }],
        jobs: [{ id: 'demo', seeds: ['http://example.com/'] }],
      },
      'twice.json',
    );
    const second = await runCli(['check-config', twice]);
    expect(second.code).toBe(2);
    expect(second.stderr).toContain('sinks[1].prefix: sinks[0] writes the same files');
  });

  it('crawl --once archives every page into whole, indexed files', async () => {
    const dir = tempDir();
    const small = writeJsonConfig(dir, {
      sinks: [{ kind: 'jsonl' }, { kind: 'warc', maxFileBytes: 200_000 }],
      jobs: [{ id: 'demo', seeds: [`${site.origin}/p/1400`], scope: { maxDepth: 2 } }],
    });
    const run = await runCli([
      'crawl',
      `${site.origin}/p/1400`,
      '--config',
      small,
      '--once',
      '--allow-private-networks',
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/WARC .*warc/);
    const warcDir = join(dir, 'data', 'warc');
    expect(readdirSync(warcDir).filter((n) => n.endsWith('.open'))).toEqual([]);
    const pages = archivedPages(archive(warcDir));
    const results = readJsonl(join(dir, 'data', 'results.jsonl'));
    expect(results.length).toBeGreaterThan(5);
    for (const r of results) expect(pages.has(r.finalUrl as string), r.finalUrl as string).toBe(true);
    for (const f of warcFiles(warcDir)) {
      expect(
        readFileSync(f.replace(/\.warc\.gz$/, '.cdxj'), 'utf8')
          .trim()
          .split('\n').length,
      ).toBeGreaterThan(0);
    }
  }, 60_000);

  it('SIGKILL mid-crawl, resume: no .open file left, every file whole, every page archived', async () => {
    const dir = tempDir();
    const file = config(dir);
    const results = join(dir, 'data', 'results.jsonl');
    const warcDir = join(dir, 'data', 'warc');
    const args = [
      'crawl',
      `${site.origin}/`,
      '--config',
      file,
      '--allow-private-networks',
      '--max-concurrency',
      '8',
    ];
    const first = startCli(args);
    await waitFor(() => countLines(results) >= 300, { what: '300 pages', deadlineMs: 30_000 });
    first.child.kill('SIGKILL');
    expect(await first.exited).toBe('SIGKILL');
    // The killed daemon's file is still open.
    expect(readdirSync(warcDir).some((n) => n.endsWith('.warc.gz.open'))).toBe(true);

    const second = await runCli([...args, '--once'], {}, 90_000);
    expect(second.code).toBe(0);
    expect(readdirSync(warcDir).filter((n) => n.endsWith('.open'))).toEqual([]);
    const records = archive(warcDir);
    const pages = archivedPages(records);
    const urls = readJsonl(results).map((r) => r.finalUrl as string);
    expect(new Set(urls).size).toBe(1500);
    expect(urls.length).toBe(1500);
    expect(urls.filter((u) => !pages.has(u))).toEqual([]);
  }, 150_000);
});
