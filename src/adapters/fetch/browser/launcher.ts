import type { Browser } from 'playwright-core';
import { BrowserUnavailableError } from '../../../core/errors.js';

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
      args: [
        // Chromium resolves no name and dials no address itself: every request is fulfilled
        // by crawld's fetcher (page-run.ts), and anything that escapes interception
        // (preconnect, WebRTC, a websocket) fails here instead of reaching the network.
        '--host-resolver-rules=MAP * ~NOTFOUND',
        '--webrtc-ip-handling-policy=disable_non_proxied_udp',
        '--force-webrtc-ip-handling-policy',
        // A page that allocates without end crashes its own tab early, not the machine.
        `--js-flags=--max-old-space-size=${rendererHeapMiB}`,
        '--disable-dev-shm-usage',
      ],
    });
  } catch (err) {
    throw new BrowserUnavailableError(
      `cannot start ${executablePath}: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      { cause: err },
    );
  }
}
