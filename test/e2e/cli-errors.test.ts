import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, tempDir } from '../helpers/cli.js';

describe('bad input exits 2 and changes nothing on disk', () => {
  it('refuses a bad seed URL', async () => {
    const dir = join(tempDir(), 'data');
    const r = await runCli(['crawl', 'not-a-url', '--data-dir', dir, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("seeds[0]: must be an absolute http(s) URL (got 'not-a-url')");
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a malformed config file naming each bad field', async () => {
    const tmp = tempDir();
    const dir = join(tmp, 'data');
    const file = join(tmp, 'bad.yaml');
    writeFileSync(
      file,
      `dataDir: ${dir}\njobs:\n  - id: shop\n    seeds: [https://shop.example/, 'ftp://x']\n    bogus: 1\n`,
    );
    const check = await runCli(['check-config', file]);
    expect(check.code).toBe(2);
    expect(check.stderr).toContain('jobs[0].seeds[1]: must be an absolute http(s) URL');
    expect(check.stderr).toContain('jobs[0].bogus: unknown key');
    const run = await runCli(['run', '--config', file, '--once']);
    expect(run.code).toBe(2);
    expect(existsSync(dir)).toBe(false);
  });

  it.each([
    ['malformed YAML', 'jobs:\n  - id: a\n   seeds: [http://a.example/\n', '(file): not valid YAML or JSON'],
    [
      'a wrong type',
      'concurrency:\n  global: "lots"\n',
      'concurrency.global: Invalid input: expected number',
    ],
    ['an unknown key', 'fetch:\n  maxBodyByte: 10\n', 'fetch.maxBodyByte: unknown key'],
    [
      'a bad floor of the adaptive global limit',
      'concurrency:\n  minGlobal: 0\n',
      'concurrency.minGlobal: must be an integer >= 1, got 0',
    ],
    [
      'a wrong type of globalAdaptive',
      'concurrency:\n  globalAdaptive: "yes"\n',
      'concurrency.globalAdaptive: Invalid input: expected boolean',
    ],
    [
      'an invalid regex',
      'jobs:\n  - id: a\n    seeds: [http://a.example/]\n    scope:\n      include: ["(unclosed"]\n',
      'jobs[0].scope.include[0]: must be a valid regular expression',
    ],
    [
      'an invalid URL',
      'jobs:\n  - id: a\n    seeds: ["http//a.example/"]\n',
      'jobs[0].seeds[0]: must be an absolute http(s) URL',
    ],
  ])(
    'run --config refuses %s with exit 2, the field path, and an untouched data dir',
    async (_what, body, message) => {
      const tmp = tempDir();
      const dir = join(tmp, 'data');
      // An existing, empty data dir: not even the lock file may appear in it.
      mkdirSync(dir);
      const file = join(tmp, 'bad.yaml');
      writeFileSync(file, `dataDir: ${dir}\n${body}`);
      const r = await runCli(['run', '--config', file, '--once']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(message);
      expect(readdirSync(dir)).toEqual([]);
    },
  );

  it('accepts a valid config', async () => {
    const tmp = tempDir();
    const file = join(tmp, 'ok.yaml');
    writeFileSync(file, 'jobs:\n  - id: shop\n    seeds: [https://shop.example/]\n');
    const r = await runCli(['check-config', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok (1 job)');
  });

  it('refuses unknown flags and commands', async () => {
    expect((await runCli(['crawl', 'http://x.example/', '--nope'])).code).toBe(2);
    expect((await runCli(['frobnicate'])).code).toBe(2);
  });

  it('refuses loopback seeds unless private networks are allowed', async () => {
    const dir = join(tempDir(), 'data');
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--data-dir', dir, '--once']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('seeds[0]: http://127.0.0.1:9/ is a loopback address');
    expect(r.stderr).toContain('--allow-private-networks');
    expect(existsSync(dir)).toBe(false);
  });
});
