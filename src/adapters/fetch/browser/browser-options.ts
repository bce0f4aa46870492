import { accessSync, constants } from 'node:fs';
import { availableParallelism, freemem } from 'node:os';
import { delimiter, join } from 'node:path';
import type { HostTimeouts } from '../../../core/host-timeout.js';
import type { Fetcher } from '../../../ports/fetcher.js';

/** What the browser pool reports; the daemon turns these into metrics (docs/metrics.md). */
export interface BrowserObserver {
  render?(seconds: number): void;
  /** A context was closed after serving `pages` pages. */
  contextClosed?(pages: number): void;
  restart?(reason: BrowserRestartReason): void;
  /** A tab or the whole browser crashed. */
  crash?(): void;
  blocked?(reason: BlockedRequestReason): void;
  rss?(bytes: number): void;
}

export const BROWSER_RESTART_REASONS = ['crash', 'rss'] as const;
export type BrowserRestartReason = (typeof BROWSER_RESTART_REASONS)[number];

/** Why a request a page made was refused (crawld_browser_blocked_requests_total{reason}). */
export const BLOCKED_REQUEST_REASONS = [
  'blocked_address',
  'resource_type',
  'scheme',
  'body_too_large',
  'navigation',
  'popup',
  'websocket',
  'fetch_error',
] as const;
export type BlockedRequestReason = (typeof BLOCKED_REQUEST_REASONS)[number];

export interface BrowserFetcherOptions {
  readonly executablePath: string;
  /** Pages rendered at once across all contexts. */
  readonly maxPages: number;
  readonly pagesPerContext: number;
  /** Process tree RSS past which the browser is retired and a new one started. */
  readonly maxRssBytes: number;
  readonly userAgent: string;
  /** Bytes a page may receive, document and subresources summed (fetch.maxBodyBytes). */
  readonly maxBodyBytes: number;
  /** Navigations a page's scripts may start (fetch.maxRedirects). */
  readonly maxNavigations: number;
  /** The page's document (the http path's rules) and its subresources; both SSRF-guarded. */
  readonly documentFetcher: Fetcher;
  readonly subresourceFetcher: Fetcher;
  /** How often the browser's RSS is read. @default 2000 */
  readonly rssIntervalMs?: number;
  /** V8 heap of each renderer: a page allocating past it crashes its tab (render_crash). @default 512 */
  readonly rendererHeapMiB?: number;
  readonly observer?: BrowserObserver;
  /** Each host's learned `render` timeout, under render.timeoutMs: a render past it is hung. */
  readonly timeouts?: HostTimeouts;
}

const PAGE_BYTES = 150 * 1024 * 1024;
const PAGES_PER_CORE = 4;

/**
 * fetch.browser.maxPages, else one page per 150 MiB free (a renderer takes 50–150 MiB), at most
 * 4 per core (rendering is CPU-bound), at least 1.
 */
export function poolPages(configured: number | undefined): number {
  return configured ?? defaultMaxPages(freemem(), availableParallelism());
}

export function defaultMaxPages(freeBytes: number, cores: number): number {
  const byMemory = Math.floor(freeBytes / PAGE_BYTES);
  return Math.max(1, Math.min(byMemory, PAGES_PER_CORE * Math.max(1, cores)));
}

const CANDIDATES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The first Chromium-like executable on PATH, or undefined. */
export function findChromium(path = process.env.PATH ?? ''): string | undefined {
  for (const name of CANDIDATES) {
    for (const dir of path.split(delimiter)) {
      if (dir === '') continue;
      const file = join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {}
    }
  }
  return undefined;
}
