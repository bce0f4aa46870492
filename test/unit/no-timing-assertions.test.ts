/**
 * No test asserts how fast something happens on this machine: a share, a rate, a latency or
 * an elapsed time measured on the real clock passes on a quiet machine and fails on a busy one
 * (issue 46: a newcomer's first `npm test` was red that way). Such figures go to a bench
 * (bench/*.mjs, docs/performance.md). Tests wait for conditions (waitFor), never for time.
 *
 * What is still allowed: floors that load cannot break (a limiter's gap between requests, a
 * Retry-After honoured: load only makes them longer), ceilings on counts and rates (load only
 * lowers them), and any figure of a simulated clock (FakeClock, vi.useFakeTimers, the
 * simulators in test/helpers), which the machine's speed does not move.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const TEST = join(ROOT, 'test');

interface Form {
  readonly name: string;
  readonly re: RegExp;
}

const FORMS: readonly Form[] = [
  // expect(Date.now() - t0).toBeLessThan(2000), expect(performance.now() - started)...
  {
    name: 'a ceiling on the real clock',
    re: /expect\([^;]*(Date\.now\(\)|performance\.now\(\)|hrtime)[^;]*\.(toBeLessThan|toBeCloseTo)/,
  },
  // expect(second.at - killedAt).toBeLessThan(...), expect(after[0]!.atMs - to).toBeLessThan(3000)
  {
    name: 'a ceiling on the time between two events',
    re: /expect\([^;]*(\.at|At|atMs)\s*-\s*[^;]*\)[^;]*\.(toBeLessThan|toBeCloseTo)/,
  },
  // await new Promise((r) => setTimeout(r, 500)): waitFor a condition, or pause() saying why.
  { name: 'a sleep on setTimeout', re: /new Promise[^;]*setTimeout\(\s*(r|res|resolve)\s*,/ },
  // expect(elapsedMs).toBeLessThan(1000), expect(seconds).toBeLessThan(5)
  {
    name: 'a ceiling on a measured duration',
    re: /expect\(\s*(elapsed|took|duration|seconds|secs|ms\b)\w*\s*[,)][^;]*\.(toBeLessThan|toBeCloseTo)/i,
  },
  // expect(rate).toBeGreaterThanOrEqual(0.7 * 50), expect(together / alone.rate).toBeGreaterThan(...)
  {
    name: 'a floor on a rate, a share or a ratio of speeds',
    re: /expect\((?:[^;]*?[\s.!/(])?(rate|share|perSec|pagesPerSec|ratio)\w*\b[^;]*\.toBeGreaterThan(OrEqual)?\((?!0\))/i,
  },
];

/**
 * Lines that match a form and are no timing assertion, by file and the text they contain, each
 * with why. Keep it short: a new entry needs the same care.
 */
const ALLOWED: readonly { file: string; text: string; why: string }[] = [
  {
    file: 'test/integration/adaptive-recrawl.test.ts',
    text: 'expect(share(adapted)).toBeGreaterThan(3 * share(fixed))',
    why: 'a share of requests over simulated cycles, each awaited until the scheduler settles: counts, not speed',
  },
  {
    file: 'test/e2e/sigterm-waiting.test.ts',
    text: 'expect(exitedAt).toBeLessThan(throttledAt + RETRY_AFTER_S * 1000)',
    why: 'a stopped daemon and one waiting out a 5 s Retry-After differ only in when they exit; 4.5 s of slack over a SIGTERM',
  },
];

/** Files whose figures come from a simulated clock: the machine's speed does not move them. */
const SIMULATED = /FakeClock|useFakeTimers|knee-sim|render-pool-sim/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return testFiles(path);
    return e.name.endsWith('.ts') ? [path] : [];
  });
}

function offences(): string[] {
  const found: string[] = [];
  for (const path of testFiles(TEST)) {
    const file = relative(ROOT, path);
    if (file === 'test/unit/no-timing-assertions.test.ts' || file === 'test/helpers/wait.ts') continue;
    const text = readFileSync(path, 'utf8');
    const simulated = SIMULATED.test(text);
    text.split('\n').forEach((line, i) => {
      for (const form of FORMS) {
        if (!form.re.test(line)) continue;
        if (simulated && form.name !== 'a sleep on setTimeout') continue;
        if (ALLOWED.some((a) => a.file === file && line.includes(a.text))) continue;
        found.push(`${file}:${i + 1}: ${form.name}: ${line.trim()}`);
      }
    });
  }
  return found;
}

describe('no timing assertions in tests', () => {
  it('finds none of the usual forms outside the allowlist', () => {
    expect(offences()).toEqual([]);
  });

  it('catches each form it names', () => {
    const samples = [
      'expect(Date.now() - t0).toBeLessThan(2000);',
      'expect(performance.now() - started).toBeLessThan(1_000);',
      'await new Promise((r) => setTimeout(r, 500));',
      'expect(elapsed).toBeLessThan(15_000);',
      'expect(second.at - killedAt).toBeLessThanOrEqual(LEASE_MS + 5_000);',
      'expect(after[0]!.atMs - to).toBeLessThan(3000);',
      'expect(rate).toBeGreaterThanOrEqual(0.7 * 50);',
      'expect(together / alone.rate, rates).toBeGreaterThanOrEqual(0.7);',
    ];
    for (const s of samples)
      expect(
        FORMS.some((f) => f.re.test(s)),
        s,
      ).toBe(true);
    // Floors load cannot break, and ceilings on rates, stay allowed.
    const allowed = [
      'expect(gap).toBeGreaterThanOrEqual(950);',
      'expect(rate).toBeLessThanOrEqual(1.1 * 40);',
      'expect(Date.now() - killedAt).toBeGreaterThanOrEqual(leaseMs - 500);',
      'expect(c.generation).toBeGreaterThan(0);',
    ];
    for (const s of allowed) {
      expect(
        FORMS.some((f) => f.re.test(s)),
        s,
      ).toBe(false);
    }
  });

  it('has an allowlist whose every entry still matches a line', () => {
    for (const a of ALLOWED) expect(readFileSync(join(ROOT, a.file), 'utf8'), a.file).toContain(a.text);
  });
});
