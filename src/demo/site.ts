import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ProductJson, productApiIndex, renderShell } from './js-shell.js';

/**
 * A deterministic synthetic shop for demos, tests and benchmarks (comparable to the peers'
 * bench/site.mjs: ~15 KB pages, about 10 related links each, keep-alive).
 *
 * Pages: page 0 is '/', page i is '/p/<i>' (0 < i < pages; '/p/0' redirects to '/'). Page i
 * links to 2i+1 and 2i+2 (a binary tree, so every page is reachable from '/') plus 8
 * pseudo-random pages; every link points at an existing page. Content depends only on
 * (seed, i, price epoch), so two sites with the same seed serve identical bytes.
 */
export interface DemoSiteOptions {
  /** 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  readonly pages: number;
  /** Delay before every response except /__stats. */
  readonly latencyMs: number;
  /** Fraction of page requests answered 500, deterministic per (path, nth request for it). */
  readonly errorRate: number;
  /**
   * Requests in flight the site handles at `latencyMs`. Beyond it, a request arriving as the
   * n-th in flight waits latencyMs × n / capacity: throughput saturates at capacity/latencyMs
   * and latency grows linearly, like a queueing server, so an adaptive limiter can find the
   * knee. Only shapes latency when latencyMs > 0. Unset: unlimited.
   */
  readonly capacity: number | undefined;
  readonly seed: number;
  /** Current price epoch; prices change when it does. Overridden by setPriceEpoch(). */
  readonly priceEpoch: (() => number) | undefined;
  /**
   * Fraction of pages whose price changes at each new epoch (deterministic per page and
   * epoch). Unset: every page changes at every epoch.
   */
  readonly changeRate: number | undefined;
  /** JavaScript mode (js-shell.ts): product pages are shells rendering /api/p/<i>.json. */
  readonly js: boolean;
}

export const DEFAULT_DEMO_SITE: DemoSiteOptions = {
  port: 0,
  host: '127.0.0.1',
  pages: 1000,
  latencyMs: 0,
  errorRate: 0,
  capacity: undefined,
  seed: 1,
  priceEpoch: undefined,
  changeRate: undefined,
  js: false,
};

export interface DemoSiteStats {
  /** Every request except /__stats. */
  readonly requests: number;
  readonly inflight: number;
  readonly maxInflight: number;
  /** 200 responses for product pages. */
  readonly pagesServed: number;
  /** Injected 500s. */
  readonly errors: number;
  /** 304 Not Modified answers to conditional requests for product pages. */
  readonly notModified: number;
  readonly bytes: number;
}

export interface DemoSite {
  /** Origin without a trailing slash, e.g. http://127.0.0.1:8300. */
  readonly url: string;
  readonly port: number;
  stats(): DemoSiteStats & { readonly byPath: Readonly<Record<string, number>> };
  setPriceEpoch(epoch: number): void;
  close(): Promise<void>;
}

/** 32-bit integer hash (murmur3 finaliser over a running state): cheap and well mixed. */
function hash(...xs: number[]): number {
  let h = 0x9e3779b9;
  for (const x of xs) {
    h = Math.imul(h ^ (x | 0), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
  }
  return h >>> 0;
}

function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip'
).split(' ');
const ADJECTIVES = ['Sturdy', 'Compact', 'Deluxe', 'Classic', 'Portable', 'Smart', 'Vintage', 'Eco'];
const NOUNS = ['Kettle', 'Lamp', 'Backpack', 'Chair', 'Headphones', 'Blender', 'Watch', 'Umbrella'];

function words(seed: number, n: number): string {
  const out: string[] = [];
  for (let w = 0; w < n; w++) out.push(WORDS[hash(seed, w) % WORDS.length] ?? 'lorem');
  return out.join(' ');
}

/** ~13 KB of description shared by all pages: rendered once, so serving a page is cheap. */
function renderFiller(seed: number): Buffer {
  let html = '';
  for (let p = 0; html.length < 13_000; p++) html += `<p class="desc">${words(hash(seed, 7, p), 60)}.</p>\n`;
  return Buffer.from(`<section class="body">\n${html}</section>\n`);
}

function formatPrice(cents: number): string {
  const dollars = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+$)/g, ',');
  return `$${dollars}.${String(cents % 100).padStart(2, '0')}`;
}

export function pagePath(i: number): string {
  return i === 0 ? '/' : `/p/${i}`;
}

/** The pages page i links to, in document order (children first; may repeat). */
export function pageLinks(i: number, pages: number, seed: number): number[] {
  const out: number[] = [];
  for (const c of [2 * i + 1, 2 * i + 2]) if (c < pages) out.push(c);
  for (let k = 0; k < 8; k++) out.push(hash(seed, i, k, 1) % pages);
  return out;
}

export function pagePrice(i: number, seed: number, epoch: number): string {
  return formatPrice(100 + (hash(seed, i, epoch, 2) % 250_000));
}

function productJson(i: number, o: DemoSiteOptions, epoch: number): ProductJson {
  const h = hash(o.seed, i, 3);
  return {
    id: i,
    title: `Product ${i}`,
    name: `${ADJECTIVES[h % ADJECTIVES.length]} ${NOUNS[(h >>> 8) % NOUNS.length]}`,
    price: pagePrice(i, o.seed, pageEpoch(i, epoch, o.seed, o.changeRate)),
    related: pageLinks(i, o.pages, o.seed).map(pagePath),
  };
}

function renderPage(i: number, o: DemoSiteOptions, epoch: number, filler: Buffer): Buffer {
  const h = hash(o.seed, i, 3);
  const name = `${ADJECTIVES[h % ADJECTIVES.length]} ${NOUNS[(h >>> 8) % NOUNS.length]}`;
  const up = i === 0 ? '' : ` <a href="${pagePath(Math.floor((i - 1) / 2))}">Up</a>`;
  const related = pageLinks(i, o.pages, o.seed)
    .map((j) => `<li><a href="${pagePath(j)}">Product ${j}</a></li>`)
    .join('\n');
  const head = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Product ${i} — Demo Shop</title>
<meta name="description" content="Product ${i}: ${name}, ${words(h, 12)}.">
<link rel="canonical" href="${pagePath(i)}"></head>
<body><header><nav><a href="/">Home</a>${up}</nav></header>
<main><article id="product-${i}"><h1 class="title">Product ${i}</h1>
<div class="meta"><span class="name">${name}</span> <span class="price">${pagePrice(i, o.seed, epoch)}</span> <span class="sku">SKU-${i}</span></div>
<p class="lead">${words(h, 40)}.</p>
`;
  const tail = `<ul class="related">
${related}
</ul></article></main><footer><p>Demo Shop &copy; crawld — synthetic data, seed ${o.seed}</p></footer></body></html>
`;
  return Buffer.concat([Buffer.from(head), filler, Buffer.from(tail)]);
}

function renderSitemap(origin: string, pages: number): Buffer {
  const urls: string[] = [];
  for (let i = 0; i < pages; i++) urls.push(`<url><loc>${origin}${pagePath(i)}</loc></url>`);
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`,
  );
}

/** Scanned back at most this many epochs for a page's last change (then taken as unchanged). */
const MAX_EPOCH_SCAN = 100_000;

/** The epoch page i last changed at, as of epoch e: its content is that epoch's. */
export function pageEpoch(i: number, e: number, seed: number, changeRate: number | undefined): number {
  if (changeRate === undefined) return e;
  for (let k = e; k > 0 && e - k < MAX_EPOCH_SCAN; k--)
    if (hash(seed, i, k, 5) / 2 ** 32 < changeRate) return k;
  return 0;
}

/** Validators of a page version: a strong ETag and a Last-Modified one hour per epoch after 2026-01-01. */
function validators(i: number, version: number, o: DemoSiteOptions): { etag: string; lastModified: string } {
  return {
    etag: `"p${i}-v${version}-${hash(o.seed, o.pages).toString(36)}"`,
    lastModified: new Date(Date.UTC(2026, 0, 1) + version * 3_600_000).toUTCString(),
  };
}

/** RFC 9110 §13.1.1-2: If-None-Match (weak comparison) decides when present, else If-Modified-Since. */
function notModified(req: IncomingMessage, etag: string, lastModified: string): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) {
    if (inm.trim() === '*') return true;
    const strip = (t: string) => t.trim().replace(/^W\//, '');
    return inm.split(',').some((t) => strip(t) === strip(etag));
  }
  const ims = req.headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}

/** Page index for a request path, or undefined. Rejects '/p/007' so each page has one URL. */
function pageIndex(path: string, pages: number): number | undefined {
  if (path === '/') return 0;
  const m = /^\/p\/(0|[1-9]\d{0,9})$/.exec(path);
  if (!m) return undefined;
  const i = Number(m[1]);
  return i < pages ? i : undefined;
}

export async function startDemoSite(options: Partial<DemoSiteOptions> = {}): Promise<DemoSite> {
  const o: DemoSiteOptions = { ...DEFAULT_DEMO_SITE, ...stripUndefined(options) };
  if (!Number.isInteger(o.pages) || o.pages < 1) throw new RangeError('pages must be a positive integer');
  if (o.capacity !== undefined && !(o.capacity > 0)) throw new RangeError('capacity must be > 0');
  if (o.changeRate !== undefined && !(o.changeRate >= 0 && o.changeRate <= 1))
    throw new RangeError('changeRate must be within 0..1');
  const filler = renderFiller(o.seed);
  let epochOf: () => number = o.priceEpoch ?? (() => 0);
  let sitemap: { origin: string; body: Buffer } | undefined;
  const byPath = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  let requests = 0;
  let inflight = 0;
  let maxInflight = 0;
  let pagesServed = 0;
  let errors = 0;
  let notModifiedCount = 0;
  let bytes = 0;
  let port = o.port;

  const send = (res: ServerResponse, status: number, type: string, body: Buffer | string) => {
    const buf = typeof body === 'string' ? Buffer.from(body) : body;
    bytes += buf.length;
    res.writeHead(status, { 'content-type': type, 'content-length': buf.length });
    res.end(buf);
  };

  const respond = (req: IncomingMessage, res: ServerResponse, path: string, nth: number) => {
    const i = pageIndex(path, o.pages);
    if (i !== undefined) {
      if (o.errorRate > 0 && hash(o.seed, hashString(path), nth, 4) / 2 ** 32 < o.errorRate) {
        errors++;
        return send(res, 500, 'text/plain; charset=utf-8', 'injected error\n');
      }
      if (path === '/p/0') {
        res.writeHead(301, { location: '/', 'content-length': 0 });
        return res.end();
      }
      if (o.js) {
        pagesServed++;
        return send(res, 200, 'text/html; charset=utf-8', renderShell(i));
      }
      const version = pageEpoch(i, epochOf(), o.seed, o.changeRate);
      const v = validators(i, version, o);
      if (notModified(req, v.etag, v.lastModified)) {
        notModifiedCount++;
        res.writeHead(304, { etag: v.etag, 'last-modified': v.lastModified });
        return res.end();
      }
      pagesServed++;
      res.setHeader('etag', v.etag);
      res.setHeader('last-modified', v.lastModified);
      return send(res, 200, 'text/html; charset=utf-8', renderPage(i, o, version, filler));
    }
    const api = o.js ? productApiIndex(path, o.pages) : undefined;
    if (api !== undefined)
      return send(res, 200, 'application/json', JSON.stringify(productJson(api, o, epochOf())));
    const origin = `http://${req.headers.host ?? `${o.host}:${port}`}`;
    if (path === '/robots.txt') {
      return send(
        res,
        200,
        'text/plain; charset=utf-8',
        `User-agent: *\nAllow: /\n\nSitemap: ${origin}/sitemap.xml\n`,
      );
    }
    if (path === '/sitemap.xml') {
      if (sitemap?.origin !== origin) sitemap = { origin, body: renderSitemap(origin, o.pages) };
      return send(res, 200, 'application/xml', sitemap.body);
    }
    send(res, 404, 'text/plain; charset=utf-8', 'not found\n');
  };

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === '/__stats') {
      const { byPath: _omitted, ...summary } = stats();
      return send(res, 200, 'application/json', JSON.stringify({ ...summary, pages: o.pages }));
    }
    requests++;
    const nth = (byPath.get(path) ?? 0) + 1;
    byPath.set(path, nth);
    inflight++;
    maxInflight = Math.max(maxInflight, inflight);
    res.once('close', () => inflight--);
    let delay = o.latencyMs;
    if (o.capacity !== undefined && inflight > o.capacity) delay = (o.latencyMs * inflight) / o.capacity;
    if (delay <= 0) return respond(req, res, path, nth);
    const t = setTimeout(() => {
      timers.delete(t);
      respond(req, res, path, nth);
    }, delay);
    timers.add(t);
  });
  // Long keep-alive and no per-socket request cap, so clients reuse connections like a real CDN.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.maxRequestsPerSocket = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const hostForUrl = o.host.includes(':') ? `[${o.host}]` : o.host;

  function stats() {
    const paths: Record<string, number> = {};
    for (const [p, n] of byPath) paths[p] = n;
    return {
      requests,
      inflight,
      maxInflight,
      pagesServed,
      errors,
      notModified: notModifiedCount,
      bytes,
      byPath: paths,
    };
  }

  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    stats,
    setPriceEpoch(epoch: number) {
      epochOf = () => epoch;
    },
    close() {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
    },
  };
}

/** So that `{ capacity: undefined }` from a CLI parser means "default", not "override with undefined". */
function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
