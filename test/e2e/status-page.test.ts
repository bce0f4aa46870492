import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliProcess, startCli, tempDir } from '../helpers/cli.js';

/**
 * The status page in a real browser against a real crawl: the daemon started by the CLI,
 * the page rendered by headless Chromium under its own CSP, numbers read from the DOM.
 */
const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOT = resolve(import.meta.dirname, '../../test-output/status-page.png');

/** The big "Done" number as the page shows it ("1,234" → 1234; NaN before the first poll). */
async function shownDone(page: Page): Promise<number> {
  const text = (await page.textContent('#done')) ?? '';
  return Number(text.replace(/,/g, ''));
}

describe('status page', () => {
  let daemon: CliProcess | undefined;
  let browser: BrowserContext | undefined;
  let profile: string | undefined;
  let url = '';

  beforeAll(async () => {
    // Fail, never skip: a skipped browser test looks green while proving nothing.
    if (!existsSync(CHROMIUM)) {
      throw new Error(`${CHROMIUM} is missing: run scripts/setup-test-env.sh (installs Debian chromium)`);
    }
    daemon = startCli([
      'demo',
      '--pages',
      '3000',
      '--latency-ms',
      '10',
      '--site-port',
      '0',
      '--http-port',
      '0',
      '--log-level',
      'info',
      // At most 150 pages/s: the crawl lasts 20 s or more however fast the machine is, so
      // "done" still grows when the page is read twice.
      '--rate',
      '150',
      '--data-dir',
      tempDir(),
    ]);
    const m = await daemon.waitFor(
      /"message":"http server listening"[^\n]*?"url":"(http:\/\/127\.0\.0\.1:\d+)"/,
    );
    url = m[1]!;
    profile = mkdtempSync(join(tmpdir(), 'crawld-chromium-'));
    // A fresh profile and no background traffic: the test must only ever talk to 127.0.0.1.
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      viewport: { width: 1100, height: 760 },
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (daemon && daemon.child.exitCode === null) {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('shows live numbers that change while the crawl runs, and the host', async () => {
    const page = await browser!.newPage();
    const problems: string[] = [];
    // A CSP violation or a script error shows up here: the page must work under its own policy.
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));

    const res = await page.goto(`${url}/`);
    expect(res?.status()).toBe(200);
    const headers = res!.headers();
    expect(headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(headers['content-security-policy']).not.toMatch(/unsafe-inline/);
    expect(headers['x-content-type-options']).toBe('nosniff');

    // Locators with a text filter, not waitForFunction: a predicate that has to be polled is
    // re-evaluated with eval, which the page's own CSP (no 'unsafe-eval') rightly refuses, so
    // the wait failed whenever the first poll had not landed yet.
    await page.locator('#done', { hasText: /^[\d,]+$/ }).waitFor();
    await page.waitForSelector('#state.running');
    const first = await shownDone(page);
    await page.waitForTimeout(2000);
    const second = await shownDone(page);
    expect(second).toBeGreaterThan(first);

    // The host row: the demo site's host:port, with its breaker and its load.
    const row = page.locator('#hosts-body tr').first();
    await row.waitFor();
    expect(await row.locator('td.host').textContent()).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await row.locator('.badge').textContent()).toBe('closed');
    expect(await row.locator('td.num').first().textContent()).toMatch(/^\d+ \/ \d+$/);
    // Its learned timeout once it answered a few pages (a 10 ms host's is about the floor,
    // 0.25 s); hovering shows every phase, a render's never learned on an http job.
    const timeout = row.locator('td.num').nth(1);
    await row.locator('td.num', { hasText: /^\d+(\.\d+)? s$/ }).waitFor();
    expect(await timeout.getAttribute('title')).toMatch(
      /^connect (\S+ s|configured) · headers \S+ s · body \S+ s · render configured$/,
    );
    // The demo site's robots.txt answers: no host waits for it.
    await page.locator('#robots-count', { hasText: '(0)' }).waitFor();
    expect(await page.isVisible('#robots-empty')).toBe(true);

    // By now several polls have passed: a rate, a sparkline and a live connection.
    await page.locator('#rate', { hasText: /[1-9]/ }).waitFor(); // a rate above zero
    expect(await page.getAttribute('#spark-line', 'points')).toMatch(/\d+(\.\d+)?,\d+(\.\d+)? /);
    expect(await page.textContent('#conn')).toBe('live');
    expect(await page.textContent('#instance')).not.toBe('…');
    expect(problems).toEqual([]);

    mkdirSync(resolve(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(existsSync(SCREENSHOT)).toBe(true);
  }, 60_000);
});
