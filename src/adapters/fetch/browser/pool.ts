/**
 * The browser and its contexts. A crashed browser is dropped at once; one past the RSS cap is
 * retired (closes after its last page) while a new one starts. Contexts are replaced after N pages.
 */
import type { Browser, BrowserContext, Page, Route, WebSocketRoute } from 'playwright-core';
import { BrowserUnavailableError } from '../../../core/errors.js';
import type { BrowserObserver, BrowserRestartReason } from './browser-options.js';

interface ContextSlot {
  readonly context: Promise<BrowserContext>;
  served: number;
  open: number;
  retired: boolean;
  /** Tabs reset to about:blank for the next render; last in, first out, so the front idled longest. */
  readonly idle: Array<{ page: Page; ready: Promise<unknown>; since: number }>;
}

export interface Generation {
  readonly browser: Promise<Browser>;
  inflight: number;
  retiring: boolean;
  /** Disconnected without being asked to: its pages' errors are crashes. */
  crashed: boolean;
  context?: ContextSlot | undefined;
}

export interface PageLease {
  readonly page: Page;
  readonly generation: Generation;
  /** Time to get the page: the crawler's own delay, not the host's render time. */
  readonly openMs: number;
  /** reuse: the render went well, the page may serve the next one (a new tab costs more than the render). */
  close(reuse: boolean): Promise<void>;
}

export interface PoolOptions {
  readonly launch: () => Promise<Browser>;
  readonly pagesPerContext: number;
  readonly userAgent: string;
  /** Runs in every frame before the page's own scripts. */
  readonly initScript: string;
  readonly onRoute: (route: Route) => Promise<void>;
  readonly onWebSocket: (ws: WebSocketRoute) => void;
  /** Called once per new page (listeners); the page then serves several renders. */
  readonly onPage: (page: Page) => void;
  readonly observer?: BrowserObserver | undefined;
  /** A tab idle this long is closed (each is a renderer process). @default 5000 */
  readonly idleTabMs?: number;
}

export class BrowserPool {
  #current: Generation | undefined;
  readonly #all = new Set<Generation>();
  #closing = false;

  readonly #o: PoolOptions;

  constructor(o: PoolOptions) {
    this.#o = o;
  }

  get generations(): number {
    return this.#all.size;
  }

  async openPage(): Promise<PageLease> {
    if (this.#closing) throw new BrowserUnavailableError('browser pool is closing');
    const gen = this.#generation();
    gen.inflight++;
    let slot: ContextSlot | undefined;
    const openFrom = performance.now();
    try {
      const browser = await gen.browser;
      slot = this.#contextSlot(gen, browser);
      slot.open++;
      slot.served++;
      if (slot.served >= this.#o.pagesPerContext) {
        slot.retired = true;
        if (gen.context === slot) gen.context = undefined;
      }
      const page = await this.#page(slot);
      // A context's last render: nothing reuses its idle tabs, and the next context's would add to them.
      if (slot.retired) this.#closeIdle(slot);
      const opened = slot;
      return {
        page,
        generation: gen,
        openMs: performance.now() - openFrom,
        close: (reuse) => this.#closePage(gen, opened, page, reuse),
      };
    } catch (err) {
      if (slot) await this.#releaseContext(slot);
      this.#releaseGeneration(gen);
      throw err;
    }
  }

  /** Retires the current browser: it finishes its pages, new ones go to a fresh browser. */
  retire(reason: BrowserRestartReason): void {
    const gen = this.#current;
    if (!gen || gen.retiring) return;
    gen.retiring = true;
    this.#current = undefined;
    if (gen.context) this.#closeIdle(gen.context);
    this.#o.observer?.restart?.(reason);
    if (gen.inflight === 0) void this.#closeBrowser(gen);
  }

  async close(): Promise<void> {
    this.#closing = true;
    this.#current = undefined;
    await Promise.all([...this.#all].map((g) => this.#closeBrowser(g)));
  }

  #generation(): Generation {
    if (this.#current) return this.#current;
    const gen: Generation = {
      browser: this.#o.launch(),
      inflight: 0,
      retiring: false,
      crashed: false,
    };
    this.#current = gen;
    this.#all.add(gen);
    gen.browser.then(
      (browser) => {
        browser.on('disconnected', () => this.#onDisconnected(gen));
        // Closed or retired while it was starting: nobody will use it.
        if (this.#closing || (gen.retiring && gen.inflight === 0)) void this.#closeBrowser(gen);
      },
      () => {
        // Failed to start: the next page tries again (its own task is retried).
        this.#all.delete(gen);
        if (this.#current === gen) this.#current = undefined;
      },
    );
    return gen;
  }

  #onDisconnected(gen: Generation): void {
    this.#all.delete(gen);
    if (this.#current === gen) this.#current = undefined;
    if (this.#closing || gen.retiring) return;
    gen.crashed = true;
    this.#o.observer?.crash?.();
    this.#o.observer?.restart?.('crash');
  }

  #contextSlot(gen: Generation, browser: Browser): ContextSlot {
    if (gen.context && !gen.context.retired) return gen.context;
    const context = browser
      .newContext({
        userAgent: this.#o.userAgent,
        serviceWorkers: 'block',
        acceptDownloads: false,
        javaScriptEnabled: true,
      })
      .then(async (ctx) => {
        await ctx.addInitScript(this.#o.initScript);
        await ctx.route('**/*', this.#o.onRoute);
        await ctx.routeWebSocket(/.*/, this.#o.onWebSocket);
        return ctx;
      });
    const slot: ContextSlot = { context, served: 0, open: 0, retired: false, idle: [] };
    context.catch(() => {
      slot.retired = true;
      if (gen.context === slot) gen.context = undefined;
    });
    gen.context = slot;
    return slot;
  }

  async #page(slot: ContextSlot): Promise<Page> {
    const reused = await this.#idlePage(slot);
    // The tabs this render did not take, idle for long, are more than the renders need.
    this.#closeStale(slot);
    if (reused) return reused;
    const page = await (await slot.context).newPage();
    this.#o.onPage(page);
    return page;
  }

  async #idlePage(slot: ContextSlot): Promise<Page | undefined> {
    for (let idle = slot.idle.pop(); idle; idle = slot.idle.pop()) {
      await idle.ready;
      if (!idle.page.isClosed()) return idle.page;
    }
    return undefined;
  }

  #closeStale(slot: ContextSlot): void {
    const before = performance.now() - (this.#o.idleTabMs ?? 5000);
    while (slot.idle.length > 0 && slot.idle[0]!.since < before) {
      const idle = slot.idle.shift()!;
      void idle.ready.then(() => idle.page.close().catch(() => {}));
    }
  }

  #closeIdle(slot: ContextSlot): void {
    for (const idle of slot.idle.splice(0)) {
      void idle.ready.then(() => idle.page.close().catch(() => {}));
    }
  }

  async #closePage(gen: Generation, slot: ContextSlot, page: Page, reuse: boolean): Promise<void> {
    if (reuse && !slot.retired && !gen.retiring && !gen.crashed && !page.isClosed()) {
      // about:blank stops the last page's timers and frees its DOM while the tab waits.
      const ready = page.goto('about:blank').catch(() => page.close().catch(() => {}));
      slot.idle.push({ page, ready, since: performance.now() });
      this.#closeStale(slot);
    } else {
      await page.close().catch(() => {});
    }
    await this.#releaseContext(slot);
    this.#releaseGeneration(gen);
  }

  async #releaseContext(slot: ContextSlot): Promise<void> {
    slot.open--;
    if (!slot.retired || slot.open > 0) return;
    this.#o.observer?.contextClosed?.(slot.served);
    const ctx = await slot.context.catch(() => undefined);
    await ctx?.close().catch(() => {});
  }

  #releaseGeneration(gen: Generation): void {
    gen.inflight--;
    if (gen.retiring && gen.inflight === 0) void this.#closeBrowser(gen);
  }

  async #closeBrowser(gen: Generation): Promise<void> {
    gen.retiring = true;
    this.#all.delete(gen);
    const browser = await gen.browser.catch(() => undefined);
    await browser?.close().catch(() => {});
  }
}
