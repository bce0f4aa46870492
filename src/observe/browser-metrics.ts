import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import {
  BLOCKED_REQUEST_REASONS,
  BROWSER_RESTART_REASONS,
} from '../adapters/fetch/browser/browser-options.js';
import type { CrawlEmitter } from '../core/events.js';

const RENDER_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60];
const PAGES_BUCKETS = [1, 5, 10, 25, 50, 100, 250, 1000];

/** The browser path's cost (docs/browser.md); every series present (0) from the first scrape. */
export function registerBrowserMetrics(events: CrawlEmitter, registry: Registry): void {
  const registers = [registry];
  const render = new Histogram({
    name: 'crawld_render_duration_seconds',
    help: 'Browser renders, from the document fetch to the rendered DOM (waits included).',
    buckets: RENDER_BUCKETS,
    registers,
  });
  const pages = new Histogram({
    name: 'crawld_browser_pages_per_context',
    help: 'Pages a browser context served before it was replaced (fetch.browser.pagesPerContext).',
    buckets: PAGES_BUCKETS,
    registers,
  });
  const restarts = new Counter({
    name: 'crawld_browser_restarts_total',
    help: 'Browsers replaced, by reason: crash (disconnected) or rss (process tree past fetch.browser.maxRssBytes).',
    labelNames: ['reason'],
    registers,
  });
  const crashes = new Counter({
    name: 'crawld_browser_crashes_total',
    help: 'Tab or browser crashes; the tasks rendering in them are retried (render_crash).',
    registers,
  });
  const blocked = new Counter({
    name: 'crawld_browser_blocked_requests_total',
    help: 'Requests made by rendered pages that crawld refused, by reason.',
    labelNames: ['reason'],
    registers,
  });
  const rss = new Gauge({
    name: 'crawld_browser_rss_bytes',
    help: "RSS of the browser's process tree (all its processes summed), read every 2 s while it runs.",
    registers,
  });
  for (const reason of BROWSER_RESTART_REASONS) restarts.inc({ reason }, 0);
  for (const reason of BLOCKED_REQUEST_REASONS) blocked.inc({ reason }, 0);
  crashes.inc(0);
  rss.set(0);
  events.on('browserRender', (e) => render.observe(e.seconds));
  events.on('browserContextClosed', (e) => pages.observe(e.pages));
  events.on('browserRestart', (e) => restarts.inc({ reason: e.reason }));
  events.on('browserCrash', () => crashes.inc());
  events.on('browserBlocked', (e) => blocked.inc({ reason: e.reason }));
  events.on('browserRss', (e) => rss.set(e.bytes));
}
