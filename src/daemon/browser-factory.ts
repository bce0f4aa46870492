import { accessSync, constants, statSync } from 'node:fs';
import { BrowserFetcher } from '../adapters/fetch/browser/browser-fetcher.js';
import { type BrowserObserver, findChromium, poolPages } from '../adapters/fetch/browser/browser-options.js';
import { RenderRouter } from '../adapters/fetch/render-router.js';
import type { UndiciFetcher } from '../adapters/fetch/undici-fetcher.js';
import type { CrawldConfig } from '../config/config.js';
import { BrowserUnavailableError, ConfigError } from '../core/errors.js';
import type { CrawlEmitter } from '../core/events.js';
import type { Fetcher } from '../ports/fetcher.js';

const SUBRESOURCE_TYPES = ['text/*', 'application/*', 'image/*', 'font/*', 'audio/*', 'video/*'];

/**
 * A router sends render.kind browser jobs' pages to Chromium, built whenever it can be found (a
 * reload may add a browser job); a browser job without Chromium is refused here.
 * @throws ConfigError naming fetch.browser.executablePath
 */
export function pageFetcher(config: CrawldConfig, http: UndiciFetcher, events: CrawlEmitter): Fetcher {
  const b = config.fetch.browser;
  const needed = config.jobs.some((j) => j.render.kind !== 'http');
  const executablePath = b.executablePath ?? findChromium();
  if (needed && b.executablePath !== undefined && !isExecutable(b.executablePath))
    throw new ConfigError([`fetch.browser.executablePath: ${b.executablePath} is not an executable file`]);
  if (executablePath === undefined) {
    // A reload may add a browser job: its pages then fail browser_unavailable (retried, then
    // dead-lettered), never silently fetched without rendering.
    if (!needed) return new RenderRouter(http, NO_BROWSER);
    throw new ConfigError([
      'fetch.browser.executablePath: no chromium, chromium-browser or google-chrome on PATH (a job renders with a browser)',
    ]);
  }
  const observer: BrowserObserver = {
    render: (seconds) => events.emit('browserRender', { seconds }),
    contextClosed: (pages) => events.emit('browserContextClosed', { pages }),
    restart: (reason) => events.emit('browserRestart', { reason }),
    crash: () => events.emit('browserCrash', {}),
    blocked: (reason) => events.emit('browserBlocked', { reason }),
    rss: (bytes) => events.emit('browserRss', { bytes }),
  };
  const browser = new BrowserFetcher({
    executablePath,
    maxPages: poolPages(b.maxPages),
    pagesPerContext: b.pagesPerContext,
    maxRssBytes: b.maxRssBytes,
    userAgent: config.fetch.userAgent,
    maxBodyBytes: config.fetch.maxBodyBytes,
    maxNavigations: config.fetch.maxRedirects,
    documentFetcher: http,
    subresourceFetcher: http.variant({ acceptContentTypes: SUBRESOURCE_TYPES }),
    observer,
    ...(http.options.timeouts ? { timeouts: http.options.timeouts } : {}),
  });
  return new RenderRouter(http, browser);
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const NO_BROWSER: Fetcher = {
  fetch: async (request) => {
    throw new BrowserUnavailableError(
      `${request.url}: no Chromium (fetch.browser.executablePath unset, none on PATH)`,
    );
  },
  close: async () => {},
};
