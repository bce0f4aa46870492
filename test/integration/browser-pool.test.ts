import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../src/adapters/fetch/browser/launcher.js';
import { NO_POPUPS_SCRIPT } from '../../src/adapters/fetch/browser/page-scripts.js';
import { BrowserPool, type PageLease } from '../../src/adapters/fetch/browser/pool.js';
import { CHROMIUM } from '../helpers/js-site.js';
import { pause, waitFor } from '../helpers/wait.js';

/** Every tab is a renderer process: the pool keeps no more of them than it can use. */
describe('BrowserPool with real Chromium: idle tabs', () => {
  let browser: Browser | undefined;
  let retired: string[] = [];
  const pool = new BrowserPool({
    launch: async () => {
      browser = await launchChromium(CHROMIUM, 128);
      return browser;
    },
    pagesPerContext: 3,
    userAgent: 'crawld-test',
    initScript: NO_POPUPS_SCRIPT,
    onRoute: (route) => route.abort('blockedbyclient').catch(() => {}),
    onWebSocket: () => {},
    onPage: () => {},
    observer: { restart: (r) => retired.push(r) },
  });

  afterAll(async () => {
    await pool.close();
  });

  const openTabs = () => (browser?.contexts() ?? []).reduce((n, c) => n + c.pages().length, 0);

  it("closes a context's idle tabs at its last render, not when that render is done", async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/setup-test-env.sh`);
    const a = await pool.openPage();
    const b = await pool.openPage();
    await a.close(true);
    await b.close(true);
    await waitFor(() => openTabs() === 2, 'two idle tabs kept for reuse');
    // The context's third and last render takes one idle tab; nothing will take the other.
    const last: PageLease = await pool.openPage();
    expect([a.page, b.page]).toContain(last.page);
    await waitFor(
      () => openTabs() === 1,
      'the idle tab of the retired context closed while its last page renders',
    );
    await last.close(true);
    // A fresh context for the next render; the old one is gone with its last tab.
    const next = await pool.openPage();
    await waitFor(() => openTabs() === 1, 'only the new context tab');
    await next.close(true);
  }, 60_000);

  it('closes the idle tabs of a retired browser at once, while it finishes its pages', async () => {
    retired = [];
    const busy = await pool.openPage();
    const idle = await pool.openPage();
    await idle.close(true);
    const old = browser;
    pool.retire('rss');
    expect(retired).toEqual(['rss']);
    await waitFor(() => idle.page.isClosed(), 'the idle tab closed');
    expect(busy.page.isClosed()).toBe(false);
    expect(old?.isConnected()).toBe(true);
    await busy.close(true);
    await waitFor(() => old?.isConnected() === false, 'the retired browser closed after its last page');
  }, 60_000);
});

/** Tabs the renders stopped needing (the limit came down) are closed, not kept for the context's life. */
describe('BrowserPool with real Chromium: tabs idle too long', () => {
  let browser: Browser | undefined;
  const pool = new BrowserPool({
    launch: async () => {
      browser = await launchChromium(CHROMIUM, 128);
      return browser;
    },
    pagesPerContext: 100,
    userAgent: 'crawld-test',
    initScript: NO_POPUPS_SCRIPT,
    onRoute: (route) => route.abort('blockedbyclient').catch(() => {}),
    onWebSocket: () => {},
    onPage: () => {},
    idleTabMs: 400,
  });

  afterAll(async () => {
    await pool.close();
  });

  const openTabs = () => (browser?.contexts() ?? []).reduce((n, c) => n + c.pages().length, 0);

  it('closes the tabs idle past idleTabMs and reuses the freshest', async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/setup-test-env.sh`);
    // Four renders at once, then one at a time: the fourth tab keeps serving, three go.
    const leases = await Promise.all([1, 2, 3, 4].map(() => pool.openPage()));
    for (const l of leases) await l.close(true);
    expect(openTabs()).toBe(4);
    const fresh = leases[3]!.page;
    for (let i = 0; i < 8; i++) {
      await pause(100, 'one render per 100 ms: the other tabs stay idle past idleTabMs');
      const one = await pool.openPage();
      expect(one.page).toBe(fresh);
      await one.close(true);
    }
    await waitFor(() => openTabs() === 1, 'the three tabs idle too long closed');
  }, 60_000);
});
