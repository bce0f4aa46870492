/**
 * Chromium's command line (chromium-args.ts) with real Chromium: the processes a crawl does
 * not use are not started, and the features Playwright disables stay disabled although
 * crawld's --disable-features replaces Playwright's (Chromium reads only the last one).
 */
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { DISABLED_FEATURES } from '../../src/adapters/fetch/browser/chromium-args.js';
import { launchChromium } from '../../src/adapters/fetch/browser/launcher.js';
import { tempDir } from '../helpers/cli.js';
import { CHROMIUM } from '../helpers/js-site.js';
import { pause } from '../helpers/wait.js';

/** The --type of every Chromium process below this one (renderer, gpu-process, ...). */
function chromiumTypes(): string[] {
  const parent = new Map<number, number>();
  const argv = new Map<number, string>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      argv.set(Number(name), readFileSync(`/proc/${name}/cmdline`, 'latin1').replaceAll('\0', ' '));
    } catch {
      // exited while we read
    }
  }
  const below = (pid: number): boolean => {
    for (let p = parent.get(pid); p !== undefined && p > 1; p = parent.get(p))
      if (p === process.pid) return true;
    return false;
  };
  const types: string[] = [];
  for (const [pid, cmd] of argv) {
    if (!below(pid) || !/chrom/.test(cmd)) continue;
    const type = /--type=(\S+)/.exec(cmd)?.[1] ?? 'browser';
    types.push(type === 'renderer' && cmd.includes('--top-chrome-webui') ? 'webui' : type);
  }
  return types.sort();
}

describe('Chromium command line (real Chromium)', () => {
  beforeAll(() => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/setup-test-env.sh`);
  });

  it("keeps every feature Playwright disables disabled (crawld's list replaces Playwright's)", async () => {
    // A stand-in browser that writes down the command line Playwright gives it, and fails.
    const dir = tempDir();
    const fake = join(dir, 'chromium');
    const out = join(dir, 'argv');
    writeFileSync(fake, `#!/bin/sh\nprintf '%s\\n' "$@" > '${out}'\nexit 1\n`);
    chmodSync(fake, 0o755);
    await expect(chromium.launch({ executablePath: fake, timeout: 10_000 })).rejects.toThrow();
    const playwrights = readFileSync(out, 'utf8')
      .split('\n')
      .filter((a) => a.startsWith('--disable-features='))
      .flatMap((a) => a.slice('--disable-features='.length).split(','));
    expect(playwrights.length).toBeGreaterThan(0);
    expect(DISABLED_FEATURES).toEqual(expect.arrayContaining(playwrights));
  });

  it('starts no GPU process and no spare renderer: one renderer per open tab', async () => {
    const browser = await launchChromium(CHROMIUM, 512);
    try {
      const context = await browser.newContext();
      const pages = [await context.newPage(), await context.newPage()];
      for (const page of pages) await page.setContent('<h1>x</h1>');
      // Chromium starts a spare renderer after a navigation, not at once: give it the time.
      await pause(1500, 'nothing may appear: a spare renderer would have started by then');
      const types = chromiumTypes();
      expect(types).not.toContain('gpu-process');
      expect(types.filter((t) => t === 'renderer')).toHaveLength(pages.length);
    } finally {
      await browser.close();
    }
  });
});
