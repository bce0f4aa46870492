import type { Browser } from 'playwright-core';
import { BrowserUnavailableError } from '../../../core/errors.js';
import { chromiumArgs } from './chromium-args.js';

/**
 * Starts headless Chromium through playwright-core (imported here only, so a daemon without
 * browser jobs never loads it).
 */
export async function launchChromium(executablePath: string, rendererHeapMiB: number): Promise<Browser> {
  try {
    const { chromium } = await import('playwright-core');
    return await chromium.launch({
      executablePath,
      headless: true,
      // The daemon owns its signals: SIGTERM drains the crawl, then closes the browser.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      timeout: 60_000,
      args: chromiumArgs(rendererHeapMiB),
    });
  } catch (err) {
    throw new BrowserUnavailableError(
      `cannot start ${executablePath}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      { cause: err },
    );
  }
}
