import { existsSync } from 'node:fs';
import type { LookupFunction } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JobCookieJar } from '../../src/adapters/cookies/job-jar.js';
import { BrowserFetcher, DEFAULT_RENDER } from '../../src/adapters/fetch/browser/browser-fetcher.js';
import type { BlockedRequestReason } from '../../src/adapters/fetch/browser/browser-options.js';
import { UndiciFetcher } from '../../src/adapters/fetch/undici-fetcher.js';
import { VolatileMapStore } from '../../src/adapters/shared-map/volatile-map-store.js';
import { FetchError, HungRequestError } from '../../src/core/errors.js';
import { HostTimeouts } from '../../src/core/host-timeout.js';
import type { RenderRequest } from '../../src/ports/fetcher.js';
import { CHROMIUM, type JsSite, startJsSite } from '../helpers/js-site.js';
import { waitFor } from '../helpers/wait.js';

/** shop.test resolves to 127.0.0.1 through the fetcher's own lookup; never real DNS. */
const lookup: LookupFunction = (host, options, cb) => {
  if (host !== 'shop.test') {
    const err: NodeJS.ErrnoException = new Error(`no such test host ${host}`);
    err.code = 'ENOTFOUND';
    return (cb as (e: Error, a: string) => void)(err, '');
  }
  if ((options as { all?: boolean }).all) return cb(null, [{ address: '127.0.0.1', family: 4 }]);
  return (cb as (e: null, a: string, f: number) => void)(null, '127.0.0.1', 4);
};

async function reason(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof FetchError ? err.reason : `not a FetchError: ${String(err)}`;
  }
}

describe('BrowserFetcher with real Chromium', () => {
  let site: JsSite;
  let http: UndiciFetcher;
  let browser: BrowserFetcher;
  const blocked = new Map<BlockedRequestReason, number>();
  let crashes = 0;
  // The product data arrives after the load event (a fetch does not delay it): wait for it.
  const product: RenderRequest = { ...DEFAULT_RENDER, waitForSelector: 'span.price' };
  const render = (over: Partial<RenderRequest> = {}): RenderRequest => ({ ...DEFAULT_RENDER, ...over });

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/setup-test-env.sh`);
    site = await startJsSite();
    // Only the site's own port is allowed: the secret server, also on 127.0.0.1, is not.
    http = new UndiciFetcher({
      lookup,
      addressPolicy: { allowPrivateNetworks: false, allow: [`127.0.0.1:${site.port}`] },
    });
    browser = new BrowserFetcher(browserOptions());
  }, 60_000);

  function browserOptions(): ConstructorParameters<typeof BrowserFetcher>[0] {
    return {
      executablePath: CHROMIUM,
      maxPages: 2,
      pagesPerContext: 3,
      maxRssBytes: 4 * 1024 ** 3,
      userAgent: 'crawld-test',
      maxBodyBytes: 10 * 1024 * 1024,
      maxNavigations: 5,
      documentFetcher: http,
      subresourceFetcher: http.variant({ acceptContentTypes: ['text/*', 'application/*', 'image/*'] }),
      rendererHeapMiB: 128,
      observer: {
        blocked: (r) => blocked.set(r, (blocked.get(r) ?? 0) + 1),
        crash: () => crashes++,
      },
    };
  }

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await site?.close();
  });

  const url = (path: string) => `http://shop.test:${site.port}${path}`;

  it("sends the job's cookie jar with the page's own requests: a session its document opened", async () => {
    const jar = new JobCookieJar({
      jobId: 'b',
      store: new VolatileMapStore(),
      limits: { maxPerDomain: 50, maxTotal: 3000 },
    });
    const titled = render({ waitForSelector: 'h1.title' });
    const signedIn = await browser.fetch({ url: url('/account'), render: titled, cookieJar: jar });
    expect(signedIn.body.toString()).toContain('<h1 class="title">signed in</h1>');
    expect(await jar.cookieHeader(new URL(url('/')))).toBe('sid=J5');
    // Without a jar the page's API call goes without the session.
    const anonymous = await browser.fetch({ url: url('/account'), render: titled });
    expect(anonymous.body.toString()).toContain('<h1 class="title">anonymous</h1>');
  });

  it('returns the DOM the page script rendered from its JSON', async () => {
    const res = await browser.fetch({ url: url('/products/1'), render: product });
    const body = res.body.toString();
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('text/html');
    expect(body).toContain('<h1 class="title">Product 1</h1>');
    expect(body).toContain('<span class="price">1.50</span>');
    expect(body).toContain('href="/products/2"');
    expect(site.hits.get('/api/products/1.json')).toBe(1);
    expect(res.wireBytes).toBeGreaterThan(0);
  });

  it('sends the document and the requests of its scripts with an empty query as /path? (as Chromium sends them)', async () => {
    const res = await browser.fetch({
      url: url('/empty-query?'),
      render: render({ waitForSelector: 'h1.title' }),
    });
    expect(res.url).toBe(url('/empty-query?'));
    // The page shows the request target its fetch('/api/echo?') reached the server with.
    expect(res.body.toString()).toContain('<h1 class="title">/api/echo?</h1>');
    expect(site.targets).toContain('/empty-query?');
    expect(site.targets).not.toContain('/empty-query');
  });

  it("reports the browser's start as the crawler's own wait, not as the page's render time", async () => {
    // A fresh pool: its first render waits for Chromium to start (hundreds of ms at least).
    const cold = new BrowserFetcher({ ...browserOptions(), maxPages: 1 });
    try {
      const first = await cold.fetch({ url: url('/products/2'), render: product });
      const second = await cold.fetch({ url: url('/products/3'), render: product });
      // queuedMs is what the adaptive limit subtracts from ttfbMs (windowed.ts).
      expect(first.queuedMs).toBeGreaterThan(50);
      expect(first.queuedMs).toBeLessThan(first.ttfbMs);
      // The browser runs now: only the document's own wait in the event loop is left.
      expect(second.queuedMs).toBeLessThan(first.queuedMs! / 2);
      expect(second.queuedMs).toBeGreaterThanOrEqual(0);
    } finally {
      await cold.close();
    }
  }, 60_000);

  it('keeps every subresource request away from a refused address, and counts them', async () => {
    const before = blocked.get('blocked_address') ?? 0;
    const res = await browser.fetch({ url: url('/ssrf'), render: render({ waitUntil: 'load' }) });
    expect(res.body.toString()).toContain('<h1 class="title">ssrf</h1>');
    expect(site.secret.requests).toBe(0);
    // iframe, script, fetch and XHR: four refused requests.
    expect((blocked.get('blocked_address') ?? 0) - before).toBeGreaterThanOrEqual(4);
  });

  it('ends a page whose network never goes idle with render_timeout', async () => {
    expect(
      await reason(
        browser.fetch({
          url: url('/never-idle'),
          render: render({ waitUntil: 'networkidle', timeoutMs: 2000 }),
        }),
      ),
    ).toBe('render_timeout');
  });

  it("gives up a render that outlives its host's learned render timeout as hung, as an http request", async () => {
    const timeouts = new HostTimeouts();
    const learning = new BrowserFetcher({ ...browserOptions(), timeouts });
    try {
      for (let i = 0; i < 6; i++) await learning.fetch({ url: url(`/products/${i}`), render: product });
      const host = `shop.test:${site.port}`;
      expect(timeouts.timeoutOf(host, 'render', 20_000)).toBeDefined();
      // Its network never goes idle: at 20 s render_timeout, at the learned timeout hung.
      const err = await learning
        .fetch({ url: url('/never-idle'), render: render({ waitUntil: 'networkidle', timeoutMs: 20_000 }) })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(HungRequestError);
      expect((err as HungRequestError).phase).toBe('render');
      expect(timeouts.estimate(host, 'render')!.level).toBe(1);
    } finally {
      await learning.close();
    }
  }, 60_000);

  it('ends a page that spins its main thread with render_timeout', async () => {
    expect(await reason(browser.fetch({ url: url('/busy'), render: render({ timeoutMs: 2000 }) }))).toBe(
      'render_timeout',
    );
    // Its slot was given back: the next page renders.
    const res = await browser.fetch({ url: url('/products/3'), render: product });
    expect(res.body.toString()).toContain('Product 3');
  });

  it('ends a client-side redirect loop with redirect_loop', async () => {
    expect(await reason(browser.fetch({ url: url('/loop-a'), render: render() }))).toBe('redirect_loop');
    expect(blocked.get('navigation') ?? 0).toBeGreaterThanOrEqual(1);
  });

  it('closes the popups of a window.open storm and renders the page', async () => {
    const before = blocked.get('popup') ?? 0;
    const res = await browser.fetch({ url: url('/popups'), render: render() });
    expect(res.body.toString()).toContain('<h1 class="title">popups</h1>');
    expect((blocked.get('popup') ?? 0) - before).toBeGreaterThan(0);
  });

  it('dismisses alert, confirm and prompt', async () => {
    const res = await browser.fetch({ url: url('/alert'), render: render() });
    expect(res.body.toString()).toContain('after dialogs');
  });

  it('ends a script navigation to a refused address with blocked_address', async () => {
    expect(await reason(browser.fetch({ url: url('/private-nav'), render: render() }))).toBe(
      'blocked_address',
    );
    expect(site.secret.requests).toBe(0);
  });

  it('ends a page that allocates until its tab crashes with render_crash, and goes on', async () => {
    const before = crashes;
    expect(await reason(browser.fetch({ url: url('/hog'), render: render({ timeoutMs: 30_000 }) }))).toBe(
      'render_crash',
    );
    expect(crashes).toBe(before + 1);
    const res = await browser.fetch({ url: url('/products/2'), render: product });
    expect(res.body.toString()).toContain('Product 2');
  }, 60_000);

  it('does not let a page navigate to a data: URL', async () => {
    const r = await reason(browser.fetch({ url: url('/data-nav'), render: render() }));
    // Chromium refuses renderer-initiated data: navigations itself; either way no data: page is read.
    expect(['ok', 'blocked_scheme']).toContain(r);
    if (r === 'ok') {
      const res = await browser.fetch({ url: url('/data-nav'), render: render() });
      expect(res.url).toBe(url('/data-nav'));
    }
  });
});

describe('BrowserFetcher pool: contexts recycled, browser retired past its RSS cap', () => {
  let site: JsSite;
  let http: UndiciFetcher;
  let browser: BrowserFetcher;
  const restarts: string[] = [];
  const rss: number[] = [];

  beforeAll(async () => {
    site = await startJsSite(10);
    http = new UndiciFetcher({
      addressPolicy: { allowPrivateNetworks: false, allow: [`127.0.0.1:${site.port}`] },
    });
    browser = new BrowserFetcher({
      executablePath: CHROMIUM,
      maxPages: 2,
      pagesPerContext: 2,
      // Any browser passes 1 byte: each check retires the running one.
      maxRssBytes: 1,
      rssIntervalMs: 200,
      userAgent: 'crawld-test',
      maxBodyBytes: 10 * 1024 * 1024,
      maxNavigations: 5,
      documentFetcher: http,
      subresourceFetcher: http.variant({ acceptContentTypes: ['text/*', 'application/*'] }),
      observer: {
        restart: (reason) => restarts.push(reason),
        rss: (bytes) => rss.push(bytes),
      },
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await http?.close();
    await site?.close();
  });

  it('renders on through context replacements and browser restarts, losing no page', async () => {
    const product: RenderRequest = { ...DEFAULT_RENDER, waitForSelector: 'span.price' };
    for (let i = 1; i <= 6; i++) {
      const res = await browser.fetch({ url: `${site.origin}/products/${i}`, render: product });
      expect(res.body.toString()).toContain(`Product ${i}</h1>`);
      // Let the RSS check see this browser (and retire it) before the next page.
      const checks = rss.length;
      await waitFor(() => rss.length > checks, `an RSS check after page ${i}`);
    }
    expect(rss.some((b) => b > 10 * 1024 * 1024)).toBe(true);
    expect(restarts.filter((r) => r === 'rss').length).toBeGreaterThanOrEqual(2);
    expect(restarts).not.toContain('crash');
  }, 120_000);

  it('replaces a context after pagesPerContext renders', async () => {
    const closed: number[] = [];
    const fresh = new BrowserFetcher({
      executablePath: CHROMIUM,
      maxPages: 1,
      pagesPerContext: 2,
      maxRssBytes: 8 * 1024 ** 3,
      userAgent: 'crawld-test',
      maxBodyBytes: 10 * 1024 * 1024,
      maxNavigations: 5,
      documentFetcher: http,
      subresourceFetcher: http.variant({ acceptContentTypes: ['text/*', 'application/*'] }),
      observer: { contextClosed: (pages) => closed.push(pages) },
    });
    try {
      for (let i = 1; i <= 5; i++)
        await fresh.fetch({ url: `${site.origin}/products/${i}`, render: DEFAULT_RENDER });
    } finally {
      await fresh.close();
    }
    // Five renders, two per context: two contexts were full and replaced.
    expect(closed).toEqual([2, 2]);
  }, 120_000);
});
