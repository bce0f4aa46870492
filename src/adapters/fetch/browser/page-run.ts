/**
 * One render's guard: Chromium dials nothing itself; every request of the page is fetched by
 * crawld's fetcher (SSRF guard included) and fulfilled, so it reaches what a fetch may reach.
 */
import type { Page, Route } from 'playwright-core';
import {
  BlockedAddressError,
  BlockedSchemeError,
  BodyTooLargeError,
  FetchError,
  RedirectLoopError,
  TooManyRedirectsError,
} from '../../../core/errors.js';
import type { Fetcher, FetchRequest, FetchResponse } from '../../../ports/fetcher.js';
import type { BlockedRequestReason, BrowserObserver } from './browser-options.js';

/** Hop-by-hop and encoding headers: the body handed over is already decoded and whole. */
const DROP_RESPONSE = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);
/** Conditional headers would get a 304 with no body, which a fulfilled route cannot mean. */
const DROP_REQUEST = new Set(['if-none-match', 'if-modified-since', 'range', 'cookie', 'host']);

export interface PageRunOptions {
  readonly page: Page;
  readonly document: FetchResponse;
  readonly request: FetchRequest;
  readonly subresources: Fetcher;
  readonly blockResources: ReadonlySet<string>;
  readonly maxBytes: number;
  readonly maxNavigations: number;
  readonly signal: AbortSignal;
  readonly observer?: BrowserObserver | undefined;
}

export class PageRun {
  bytes: number;
  url: string;
  readonly redirects: string[];
  #documentServed = false;
  #navigations = 0;
  readonly #seen = new Set<string>();
  #failure: FetchError | undefined;
  #reject: (err: FetchError) => void = () => {};
  /** Rejects with the first error that ends the render (blocked navigation, crash, byte cap). */
  readonly failed: Promise<never>;
  readonly #origin: string;

  readonly #o: PageRunOptions;

  constructor(o: PageRunOptions) {
    this.#o = o;
    this.bytes = o.document.wireBytes;
    this.url = o.document.url;
    this.redirects = [...o.document.redirects];
    this.#origin = new URL(o.document.url).origin;
    this.failed = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.failed.catch(() => {});
  }

  get failure(): FetchError | undefined {
    return this.#failure;
  }

  fail(err: FetchError): void {
    if (this.#failure) return;
    this.#failure = err;
    this.#reject(err);
  }

  blocked(reason: BlockedRequestReason): void {
    this.#o.observer?.blocked?.(reason);
  }

  async handle(route: Route): Promise<void> {
    const req = route.request();
    const raw = req.url();
    if (this.#failure) return abort(route);
    const mainNav = req.isNavigationRequest() && req.frame() === this.#o.page.mainFrame();
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      this.blocked('scheme');
      return abort(route);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      this.blocked('scheme');
      if (mainNav) this.fail(new BlockedSchemeError(`${this.url}: navigation to ${url.protocol} refused`));
      return abort(route);
    }
    if (mainNav) {
      if (!this.#documentServed) {
        this.#documentServed = true;
        this.#seen.add(stripHash(raw));
        return fulfill(route, this.#o.document);
      }
      const err = this.#navigation(stripHash(raw));
      if (err) {
        this.blocked('navigation');
        this.fail(err);
        return abort(route);
      }
    } else if (this.#o.blockResources.has(req.resourceType())) {
      this.blocked('resource_type');
      return abort(route);
    }
    let res: FetchResponse;
    try {
      res = await this.#o.subresources.fetch(
        this.#subrequest(url, req.method(), req.headers(), req.postDataBuffer()),
      );
    } catch (err) {
      const fe = err instanceof FetchError ? err : new FetchError(String(err), { cause: err });
      this.blocked(fe instanceof BlockedAddressError ? 'blocked_address' : 'fetch_error');
      // A script sending the page to a refused address ends the render with that reason.
      if (mainNav) this.fail(fe);
      return abort(route);
    }
    this.bytes += res.wireBytes;
    if (this.bytes > this.#o.maxBytes) {
      this.blocked('body_too_large');
      this.fail(
        new BodyTooLargeError(`${this.url}: page and subresources passed maxBodyBytes ${this.#o.maxBytes}`),
      );
      return abort(route);
    }
    if (mainNav) {
      this.redirects.push(this.url);
      this.url = res.url;
    }
    return fulfill(route, res);
  }

  /** A navigation the page's scripts started: counted, and refused when it loops or never ends. */
  #navigation(url: string): FetchError | undefined {
    this.#navigations++;
    if (this.#seen.has(url))
      return new RedirectLoopError(`${this.url}: client-side navigation loop to ${url}`);
    this.#seen.add(url);
    if (this.#navigations > this.#o.maxNavigations)
      return new TooManyRedirectsError(
        `${this.url}: more than ${this.#o.maxNavigations} client-side navigations`,
      );
    return undefined;
  }

  #subrequest(
    url: URL,
    method: string,
    browserHeaders: Record<string, string>,
    body: Buffer | null,
  ): FetchRequest {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(browserHeaders))
      if (!DROP_REQUEST.has(k.toLowerCase())) headers[k] = v;
    // The job's own headers (cookies, tokens) go to the page's own origin only.
    if (url.origin === this.#origin) Object.assign(headers, this.#o.request.headers ?? {});
    return {
      url: url.href,
      method,
      headers,
      // Archives (WARC) file a page's subresources under its job.
      ...(this.#o.request.jobId !== undefined ? { jobId: this.#o.request.jobId } : {}),
      ...(body !== null && method !== 'GET' && method !== 'HEAD' ? { body } : {}),
      ...(this.#o.request.proxy !== undefined ? { proxy: this.#o.request.proxy } : {}),
      // The job's jar, not the browser's: the page sends what an HTTP fetch would.
      ...(this.#o.request.cookieJar !== undefined ? { cookieJar: this.#o.request.cookieJar } : {}),
      signal: this.#o.signal,
    };
  }
}

function stripHash(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}

async function abort(route: Route): Promise<void> {
  // The page may be gone already (closed, crashed): nothing left to answer.
  await route.abort('blockedbyclient').catch(() => {});
}

async function fulfill(route: Route, res: FetchResponse): Promise<void> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers)) if (!DROP_RESPONSE.has(k)) headers[k] = v;
  await route.fulfill({ status: res.status, headers, body: res.body }).catch(() => {});
}
