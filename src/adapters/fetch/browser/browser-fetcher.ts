/**
 * Renders pages in headless Chromium (docs/browser.md): the document is fetched on the http path
 * first, an HTML 2xx is rendered, and its DOM is the body the job's extractors read.
 */
import type { Page, Route, WebSocketRoute } from 'playwright-core';
import { systemClock } from '../../../core/clock.js';
import {
  AbortedError,
  FetchError,
  HungRequestError,
  RenderCrashError,
  RenderTimeoutError,
} from '../../../core/errors.js';
import { type PhaseWatch, watchPhase } from '../../../core/phase-watch.js';
import type { Fetcher, FetchRequest, FetchResponse, RenderRequest } from '../../../ports/fetcher.js';
import type { BrowserFetcherOptions } from './browser-options.js';
import { launchChromium } from './launcher.js';
import { PageRun } from './page-run.js';
import { NO_POPUPS_SCRIPT, READ_DOM, WAIT_FOR } from './page-scripts.js';
import { BrowserPool, type PageLease } from './pool.js';
import { descendantsRssBytes } from './process-tree.js';
import { Slots } from './slots.js';

export const DEFAULT_RENDER: RenderRequest = Object.freeze({
  kind: 'browser',
  waitUntil: 'load',
  timeoutMs: 30_000,
  blockResources: Object.freeze(['image', 'media', 'font', 'stylesheet']),
});

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Attempts to read the DOM while the page's scripts keep navigating. */
const CONTENT_ATTEMPTS = 5;
/** How long a failed render waits for a 'disconnected' event before calling it a page error. */
const CRASH_SETTLE_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class BrowserFetcher implements Fetcher {
  readonly #slots: Slots;
  readonly #pool: BrowserPool;
  readonly #runs = new WeakMap<Page, PageRun>();
  /** Started with the first render: a daemon whose browser jobs never run reads no /proc. */
  #rssTimer: NodeJS.Timeout | undefined;
  #lastRss = 0;

  readonly #o: BrowserFetcherOptions;

  constructor(o: BrowserFetcherOptions) {
    this.#o = o;
    this.#slots = new Slots(o.maxPages);
    this.#pool = new BrowserPool({
      launch: () => launchChromium(o.executablePath, o.rendererHeapMiB ?? 512),
      pagesPerContext: o.pagesPerContext,
      userAgent: o.userAgent,
      initScript: NO_POPUPS_SCRIPT,
      onRoute: (route) => this.#onRoute(route),
      onWebSocket: (ws) => this.#onWebSocket(ws),
      onPage: (page) => this.#watch(page),
      observer: o.observer,
    });
  }

  /** The browser process tree's RSS at the last check (0 before a browser ran). */
  get rssBytes(): number {
    return this.#lastRss;
  }

  async fetch(request: FetchRequest): Promise<FetchResponse> {
    const startedAt = performance.now();
    const render = request.render ?? DEFAULT_RENDER;
    const controller = new AbortController();
    const onAbort = () => controller.abort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    if (request.signal?.aborted) controller.abort();
    try {
      // The document first: a 404, a refused redirect or a JSON answer never costs a browser page.
      const document =
        request.document ?? (await this.#o.documentFetcher.fetch({ ...request, signal: controller.signal }));
      if (document.status < 200 || document.status > 299 || !HTML_TYPES.has(document.contentType)) {
        return document;
      }
      await this.#slots.acquire(controller.signal);
      if (!this.#rssTimer) {
        this.#rssTimer = setInterval(() => this.#checkRss(), this.#o.rssIntervalMs ?? 2000);
        this.#rssTimer.unref();
      }
      try {
        return await this.#render(request, render, document, controller.signal, startedAt);
      } finally {
        this.#slots.release();
      }
    } catch (err) {
      if (request.signal?.aborted) throw new AbortedError(`${request.url}: aborted`, { cause: err });
      if (err instanceof FetchError) throw err;
      throw new FetchError(`${request.url}: ${String(err)}`, { cause: err });
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }
  }

  /** A page is free now: a render would not wait for one. */
  renderIdle(): boolean {
    return this.#slots.free > 0;
  }

  async close(): Promise<void> {
    clearInterval(this.#rssTimer);
    await this.#pool.close();
  }

  async #render(
    request: FetchRequest,
    render: RenderRequest,
    document: FetchResponse,
    signal: AbortSignal,
    startedAt: number,
  ): Promise<FetchResponse> {
    let lease: PageLease;
    try {
      lease = await this.#pool.openPage();
    } catch (err) {
      // A browser dying while a page opens is the crawler's trouble, not the page's: retried.
      if (err instanceof FetchError) throw err;
      throw new RenderCrashError(`${request.url}: no page: ${String(err).split('\n')[0]}`, { cause: err });
    }
    // The budget starts with the page: a browser starting or a slot queue are the crawler's delay.
    const deadline = performance.now() + render.timeoutMs;
    const { page } = lease;
    const run = new PageRun({
      page,
      document,
      request,
      subresources: this.#o.subresourceFetcher,
      blockResources: new Set(render.blockResources),
      maxBytes: this.#o.maxBodyBytes,
      maxNavigations: this.#o.maxNavigations,
      signal,
      observer: this.#o.observer,
    });
    this.#runs.set(page, run);
    const onAbort = () => run.fail(new AbortedError(`${request.url}: aborted`));
    signal.addEventListener('abort', onAbort, { once: true });
    // Only this timer ends a page spinning its main thread (page.content() never answers).
    const timer = setTimeout(
      () => run.fail(new RenderTimeoutError(`${request.url}: ${timeoutMessage(render)}`)),
      Math.max(1, deadline - performance.now()),
    );
    // And its host's learned render timeout under it, the same rule as an http request's.
    const watch = this.#watchRender(document.url, render, run);
    let reuse = false;
    try {
      const html = await Promise.race([this.#load(page, run, render, deadline), run.failed]);
      watch?.done();
      reuse = true;
      const totalMs = performance.now() - startedAt;
      this.#o.observer?.render?.(totalMs / 1000);
      const body = Buffer.from(html, 'utf8');
      return {
        url: run.url,
        status: document.status,
        headers: { ...document.headers, 'content-type': 'text/html; charset=utf-8' },
        contentType: 'text/html',
        body,
        wireBytes: run.bytes,
        redirects: run.redirects,
        // The limit learns from the whole render, slot wait included (past the pool's cap it
        // only queues); getting the page is the crawler's one-off, not the host's (docs/browser.md).
        ttfbMs: totalMs,
        queuedMs: (document.queuedMs ?? 0) + lease.openMs,
        totalMs,
      };
    } catch (err) {
      throw await this.#renderError(err, run, lease, request.url, render);
    } finally {
      clearTimeout(timer);
      watch?.cancel();
      signal.removeEventListener('abort', onAbort);
      this.#runs.delete(page);
      await lease.close(reuse);
    }
  }

  /** Holds the render of `url` to its host's learned render timeout, when the fetcher has learned timeouts. */
  #watchRender(url: string, render: RenderRequest, run: PageRun): PhaseWatch | undefined {
    const timeouts = this.#o.timeouts;
    if (!timeouts?.enabled) return undefined;
    const host = new URL(url).host;
    const watch: PhaseWatch = watchPhase(timeouts, systemClock, host, 'render', render.timeoutMs, () =>
      setImmediate(() => {
        if (watch.expire())
          run.fail(
            new HungRequestError(
              'render',
              `${url}: hung: not rendered within ${watch.armed.ms} ms, the host's learned render timeout`,
            ),
          );
      }),
    );
    return watch;
  }

  async #load(page: Page, run: PageRun, render: RenderRequest, deadline: number): Promise<string> {
    const left = () => Math.max(1, deadline - performance.now());
    try {
      await page.goto(run.url, { waitUntil: render.waitUntil, timeout: left() });
    } catch (err) {
      // A script navigated before the first page settled: wait for the page it went to.
      if (!/interrupted by another navigation/i.test(String(err))) throw err;
      await page.waitForLoadState(render.waitUntil, { timeout: left() });
    }
    const readDom =
      render.waitForSelector === undefined
        ? READ_DOM
        : `(async () => { await ${WAIT_FOR}(${JSON.stringify(render.waitForSelector)}); return ${READ_DOM}; })()`;
    for (let attempt = 1; ; attempt++) {
      try {
        // In the page's own world: page.content() builds a costly utility world per document.
        // The render's timer bounds the wait for a selector that never comes.
        const [html, popups] = await page.evaluate<[string, number]>(readDom);
        for (let i = 0; i < popups; i++) this.#o.observer?.blocked?.('popup');
        return html;
      } catch (err) {
        // A script moved on (context destroyed): read the DOM of where it went.
        if (attempt >= CONTENT_ATTEMPTS || !/navigat|context was destroyed/i.test(String(err))) throw err;
        await page.waitForLoadState(render.waitUntil, { timeout: left() });
      }
    }
  }

  async #renderError(
    err: unknown,
    run: PageRun,
    lease: PageLease,
    url: string,
    render: RenderRequest,
  ): Promise<FetchError> {
    if (run.failure) return run.failure;
    // A killed browser fails its pages' calls before its 'disconnected' event: give the event
    // a moment, so such a failure is a crash (retried) and not a page error (dead-lettered).
    if (!lease.generation.crashed && !(err instanceof FetchError)) await sleep(CRASH_SETTLE_MS);
    if (lease.generation.crashed || !lease.page.context().browser()?.isConnected())
      return new RenderCrashError(`${url}: the browser crashed`, { cause: err });
    if (err instanceof Error && err.name === 'TimeoutError')
      return new RenderTimeoutError(`${url}: ${timeoutMessage(render)}`, { cause: err });
    if (err instanceof FetchError) return err;
    if (/crash|closed|disconnected/i.test(String(err)))
      return new RenderCrashError(`${url}: ${String(err).split('\n')[0]}`, { cause: err });
    return new FetchError(`${url}: ${String(err).split('\n')[0]}`, { cause: err });
  }

  async #onRoute(route: Route): Promise<void> {
    let page: Page | undefined;
    try {
      page = route.request().frame().page();
    } catch {
      page = undefined; // a service worker's request: blocked with the worker
    }
    const run = page ? this.#runs.get(page) : undefined;
    if (!run) {
      // A popup or a page already done: it gets nothing.
      await route.abort('blockedbyclient').catch(() => {});
      return;
    }
    await run.handle(route);
  }

  #onWebSocket(ws: WebSocketRoute): void {
    // Never connected to a server: a crawl reads documents, and a socket would bypass the guard.
    this.#o.observer?.blocked?.('websocket');
    ws.close({ code: 1008, reason: 'blocked by crawler' }).catch(() => {});
  }

  /** Dialogs dismissed, popups closed, a tab crash ends its render; once per page, for all its renders. */
  #watch(page: Page): void {
    const observer = this.#o.observer;
    page.on('dialog', (dialog) => {
      dialog.dismiss().catch(() => {});
    });
    page.on('popup', (popup) => {
      observer?.blocked?.('popup');
      popup.close().catch(() => {});
    });
    page.on('crash', () => {
      observer?.crash?.();
      const run = this.#runs.get(page);
      run?.fail(new RenderCrashError(`${run.url}: the page's tab crashed`));
    });
    page.on('download', (download) => {
      download.cancel().catch(() => {});
    });
  }

  #checkRss(): void {
    const rss = descendantsRssBytes(process.pid);
    this.#lastRss = rss;
    this.#o.observer?.rss?.(rss);
    // One retiring at a time: the old browser still counts until its last page is done.
    if (rss > this.#o.maxRssBytes && this.#pool.generations <= 1) this.#pool.retire('rss');
  }
}

function timeoutMessage(render: RenderRequest): string {
  const selector = render.waitForSelector !== undefined ? `, selector ${render.waitForSelector}` : '';
  return `render not done within ${render.timeoutMs} ms (waitUntil ${render.waitUntil}${selector})`;
}
