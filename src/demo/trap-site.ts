/**
 * The trap site as an HTTP server on 127.0.0.1 (traps e2e test, bench/traps.mjs); a crawl's
 * waste is `requests - realServed`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  aboutPage,
  DEFAULT_TRAP_SITE,
  DOC_PAGES,
  dayPage,
  docsPage,
  HELP_TOPICS,
  helpPage,
  homePage,
  listingPage,
  monthPage,
  notFoundPage,
  productPage,
  shopPage,
  type TrapSiteOptions,
} from './trap-content.js';

export { DEFAULT_TRAP_SITE, type TrapSiteOptions } from './trap-content.js';

export interface TrapSiteStats {
  readonly requests: number;
  /** Real: the pages a reader of the site would count, each once. */
  readonly realServed: number;
  readonly realPages: number;
  /** Requests by kind: real, repeat (a real page again), calendar, facet, soft404, robots. */
  readonly byKind: Readonly<Record<string, number>>;
  /** A URL asked for before, exactly as written: a retry, not a trap. */
  readonly sameUrlAgain: number;
}

export interface TrapSite {
  readonly url: string;
  stats(): TrapSiteStats;
  /** The real pages' paths (`/product/7`, `/products?page=2`, `/help/returns`, ...). */
  realPaths(): string[];
  close(): Promise<void>;
}

type Answer = { status: number; body: string; kind: string; real?: string };

/** Every real page of the site, by the path it is counted under. */
export function realPathsOf(o: TrapSiteOptions): string[] {
  const pages = Math.ceil(o.products / o.perPage);
  const out = ['/'];
  for (let p = 1; p <= pages; p++) out.push(`/products?page=${p}`);
  for (let i = 1; i <= o.products; i++) out.push(`/product/${i}`);
  if (!o.traps) return out;
  out.push('/help', ...HELP_TOPICS.map((t) => `/help/${t}`), '/about', '/shop', '/docs/');
  out.push(...DOC_PAGES.map((d) => `/docs/${d}`));
  return out;
}

function route(url: URL, o: TrapSiteOptions, visit: number): Answer {
  const path = url.pathname;
  const pages = Math.ceil(o.products / o.perPage);
  if (path === '/') return { status: 200, body: homePage(o, visit), kind: 'real', real: '/' };
  if (path === '/products') {
    const page = Number(url.searchParams.get('page') ?? '1');
    if (Number.isInteger(page) && page >= 1 && page <= pages)
      return { status: 200, body: listingPage(page, o, visit), kind: 'real', real: `/products?page=${page}` };
  }
  const product = /^\/product\/([1-9]\d*)$/.exec(path);
  if (product && Number(product[1]) <= o.products)
    return { status: 200, body: productPage(Number(product[1]), o, visit), kind: 'real', real: path };
  if (!o.traps) return { status: 404, body: 'not found', kind: 'missing' };
  return trapRoute(url, o, visit);
}

function trapRoute(url: URL, o: TrapSiteOptions, visit: number): Answer {
  // Servlet containers take ;jsessionid off the path before routing.
  const path = url.pathname.replace(/;jsessionid=[^/]*/i, '');
  if (path === '/help')
    return { status: 200, body: helpPage(undefined, o, visit), kind: 'real', real: '/help' };
  const topic = /^\/help\/([a-z]+)$/.exec(path)?.[1];
  if (topic !== undefined && HELP_TOPICS.includes(topic))
    return { status: 200, body: helpPage(topic, o, visit), kind: 'real', real: path };
  if (path === '/about') return { status: 200, body: aboutPage(o, visit), kind: 'real', real: '/about' };
  if (path === '/shop') {
    const faceted = [...url.searchParams.keys()].length > 0;
    const body = shopPage(url.searchParams, o, visit);
    return faceted
      ? { status: 200, body, kind: 'facet' }
      : { status: 200, body, kind: 'real', real: '/shop' };
  }
  const month = /^\/events\/(\d{4})\/(\d{1,2})\/(?:(\d{1,2})\/)?$/.exec(path);
  if (month) {
    const [y, m, d] = [Number(month[1]), Number(month[2]), month[3] === undefined ? 0 : Number(month[3])];
    if (m >= 1 && m <= 12 && d <= 31) {
      const body = d === 0 ? monthPage(y, m, o, visit) : dayPage(y, m, d, o, visit);
      return { status: 200, body, kind: 'calendar' };
    }
  }
  // The docs folder: the server answers its pages under any path below /docs/.
  if (path.startsWith('/docs/')) {
    const last = path.slice(path.lastIndexOf('/') + 1);
    const real = path === '/docs/' || DOC_PAGES.includes(last) ? `/docs/${last}` : undefined;
    if (last === '' || DOC_PAGES.includes(last)) {
      const body = docsPage(last === '' ? undefined : last, o);
      return real !== undefined
        ? { status: 200, body, kind: 'real', real }
        : { status: 200, body, kind: 'docs' };
    }
  }
  return { status: 200, body: notFoundPage(path, o, visit), kind: 'soft404' };
}

export async function startTrapSite(
  options: Partial<TrapSiteOptions> & { port?: number; host?: string } = {},
): Promise<TrapSite> {
  const o: TrapSiteOptions = { ...DEFAULT_TRAP_SITE, ...options };
  let requests = 0;
  let visit = 0;
  const served = new Set<string>();
  const asked = new Set<string>();
  let sameUrlAgain = 0;
  const byKind: Record<string, number> = {};
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    requests++;
    visit++;
    if (asked.has(req.url ?? '/')) sameUrlAgain++;
    else asked.add(req.url ?? '/');
    const url = new URL(req.url ?? '/', 'http://trap.test');
    const answer: Answer =
      url.pathname === '/robots.txt'
        ? { status: 404, body: 'not found', kind: 'robots' }
        : route(url, o, visit);
    let kind = answer.kind;
    if (answer.real !== undefined) {
      if (served.has(answer.real)) kind = 'repeat';
      served.add(answer.real);
    }
    byKind[kind] = (byKind[kind] ?? 0) + 1;
    res.writeHead(answer.status, { 'content-type': 'text/html; charset=utf-8' });
    res.end(answer.body);
  };
  const server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const realPaths = realPathsOf(o);
  return {
    url: `http://127.0.0.1:${port}/`,
    stats: () => ({
      requests,
      realServed: served.size,
      realPages: realPaths.length,
      byKind: { ...byKind },
      sameUrlAgain,
    }),
    realPaths: () => [...realPaths],
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
