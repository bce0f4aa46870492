/** Answers the demo site's requests; site.ts owns the HTTP server around it. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hash, hashString } from './demo-hash.js';
import { notModified, validators } from './http-validators.js';
import { productApiIndex, renderShell } from './js-shell.js';
import {
  pageEpoch,
  pageIndex,
  productJson,
  renderFiller,
  renderPage,
  renderSitemap,
} from './shop-content.js';
import type { DemoSiteOptions } from './site-options.js';

export class DemoSiteHandler {
  /** For the origin of a request without a Host header. */
  port: number;
  #epochOf: () => number;
  /** JavaScript mode (options.js), switchable while the site runs (setJs). */
  #js: boolean;
  #sitemap: { origin: string; body: Buffer } | undefined;
  readonly #filler: Buffer;
  readonly #byPath = new Map<string, number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #requests = 0;
  #inflight = 0;
  #maxInflight = 0;
  #pagesServed = 0;
  #errors = 0;
  #notModified = 0;
  #bytes = 0;

  readonly #o: DemoSiteOptions;

  constructor(o: DemoSiteOptions) {
    this.#o = o;
    this.port = o.port;
    this.#epochOf = o.priceEpoch ?? (() => 0);
    this.#js = o.js;
    this.#filler = renderFiller(o.seed);
  }

  setPriceEpoch(epoch: number): void {
    this.#epochOf = () => epoch;
  }

  /** A shop that starts (or stops) rendering its products with JavaScript. */
  setJs(on: boolean): void {
    this.#js = on;
  }

  stats() {
    const paths: Record<string, number> = {};
    for (const [p, n] of this.#byPath) paths[p] = n;
    return {
      requests: this.#requests,
      inflight: this.#inflight,
      maxInflight: this.#maxInflight,
      pagesServed: this.#pagesServed,
      errors: this.#errors,
      notModified: this.#notModified,
      bytes: this.#bytes,
      byPath: paths,
    };
  }

  /** Cancels the responses still waiting out their latency. */
  cancelPending(): void {
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
  }

  handle(req: IncomingMessage, res: ServerResponse) {
    const o = this.#o;
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/__stats') {
      const { byPath: _omitted, ...summary } = this.stats();
      return this.#send(res, 200, 'application/json', JSON.stringify({ ...summary, pages: o.pages }));
    }
    this.#requests++;
    const nth = (this.#byPath.get(path) ?? 0) + 1;
    this.#byPath.set(path, nth);
    this.#inflight++;
    this.#maxInflight = Math.max(this.#maxInflight, this.#inflight);
    res.once('close', () => this.#inflight--);
    let delay = o.latencyMs;
    if (o.capacity !== undefined && this.#inflight > o.capacity)
      delay = (o.latencyMs * this.#inflight) / o.capacity;
    if (delay <= 0) return this.#respond(req, res, path, nth);
    const t = setTimeout(() => {
      this.#timers.delete(t);
      this.#respond(req, res, path, nth);
    }, delay);
    this.#timers.add(t);
  }

  #send(res: ServerResponse, status: number, type: string, body: Buffer | string): void {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    this.#bytes += buf.length;
    res.writeHead(status, { 'content-type': type, 'content-length': buf.length });
    res.end(buf);
  }

  #respond(req: IncomingMessage, res: ServerResponse, path: string, nth: number) {
    const o = this.#o;
    const i = pageIndex(path, o.pages);
    if (i !== undefined) return this.#page(req, res, path, nth, i);
    const api = this.#js ? productApiIndex(path, o.pages) : undefined;
    if (api !== undefined)
      return this.#send(res, 200, 'application/json', JSON.stringify(productJson(api, o, this.#epochOf())));
    const origin = `http://${req.headers.host ?? `${o.host}:${this.port}`}`;
    if (path === '/robots.txt') {
      return this.#send(
        res,
        200,
        'text/plain; charset=utf-8',
        `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`,
      );
    }
    if (path === '/sitemap.xml') {
      if (this.#sitemap?.origin !== origin) this.#sitemap = { origin, body: renderSitemap(origin, o.pages) };
      return this.#send(res, 200, 'application/xml', this.#sitemap.body);
    }
    this.#send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  }

  /** Product page i: an injected 500, the redirect of /p/0, a JS shell, a 304 or the page. */
  #page(req: IncomingMessage, res: ServerResponse, path: string, nth: number, i: number) {
    const o = this.#o;
    if (o.errorRate > 0 && hash(o.seed, hashString(path), nth, 4) / 2 ** 32 < o.errorRate) {
      this.#errors++;
      return this.#send(res, 500, 'text/plain; charset=utf-8', 'injected error\n');
    }
    if (path === '/p/0') {
      res.writeHead(301, { location: '/', 'content-length': 0 });
      res.end();
      return;
    }
    if (this.#js) {
      this.#pagesServed++;
      return this.#send(res, 200, 'text/html; charset=utf-8', renderShell(i));
    }
    const version = pageEpoch(i, this.#epochOf(), o.seed, o.changeRate);
    const v = validators(i, version, o);
    if (notModified(req, v.etag, v.lastModified)) {
      this.#notModified++;
      res.writeHead(304, { etag: v.etag, 'last-modified': v.lastModified });
      res.end();
      return;
    }
    this.#pagesServed++;
    res.setHeader('etag', v.etag);
    res.setHeader('last-modified', v.lastModified);
    this.#send(res, 200, 'text/html; charset=utf-8', renderPage(i, o, version, this.#filler));
  }
}
