import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/cli/command-table.js';
import { runCli } from '../helpers/cli.js';

/** Whitespace as one space: the usage wraps a flag's help at 100 columns. */
const flat = (s: string) => s.replace(/\s+/g, ' ');

describe('crawld COMMAND --help prints its usage, each flag explained, and exits 0', () => {
  it.each(COMMANDS.map((c) => [c.name, c] as const))('%s', async (name, spec) => {
    const words = name.split(' ');
    const [long, short, viaHelp] = await Promise.all([
      runCli([...words, '--help']),
      runCli([...words, '-h']),
      runCli(['help', ...words]),
    ]);
    for (const r of [long, short, viaHelp]) {
      expect(r.code).toBe(0);
      expect(r.stderr).toBe('');
    }
    expect(short.stdout).toBe(long.stdout);
    expect(viaHelp.stdout).toBe(long.stdout);
    const out = flat(long.stdout);
    expect(long.stdout.startsWith(`Usage: crawld ${name}`)).toBe(true);
    expect(out).toContain(flat(spec.summary));
    for (const [flag, { help }] of Object.entries(spec.flags)) {
      expect(out).toContain(`--${flag}`);
      expect(out, `--${flag}'s explanation`).toContain(flat(help));
    }
    expect(out).toContain('-h, --help');
  });

  it('crawld --help, -h and help list every command', async () => {
    const runs = await Promise.all([runCli(['--help']), runCli(['-h']), runCli(['help']), runCli([])]);
    for (const r of runs) {
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(runs[0]?.stdout);
    }
    for (const { name } of COMMANDS) expect(runs[0]?.stdout).toContain(`  ${name}`);
  });

  it('--help after other arguments prints the usage and does nothing else', async () => {
    // A seed that would be crawled (and refused: loopback) if --help did not win.
    const r = await runCli(['crawl', 'http://127.0.0.1:9/', '--once', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('Usage: crawld crawl URL...')).toBe(true);
    expect(r.stderr).toBe('');
  });

  it('crawld dlq --help prints the usage of list and redrive', async () => {
    const r = await runCli(['dlq', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: crawld dlq list');
    expect(r.stdout).toContain('Usage: crawld dlq redrive');
  });

  it('an unknown command or flag exits 2 and says where the flags are', async () => {
    const [unknown, flag] = await Promise.all([
      runCli(['help', 'frobnicate']),
      runCli(['crawl', 'http://x.example/', '--nope']),
    ]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("unknown command 'frobnicate'");
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("Unknown option '--nope'");
    expect(flag.stderr).toContain('crawld crawl --help lists its flags');
  });
});
