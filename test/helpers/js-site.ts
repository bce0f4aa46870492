import { existsSync, readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A site whose pages need JavaScript, and one hostile page per bad input of the browser path
 * (docs/browser.md). `secret` is a second 127.0.0.1 server the pages try to reach: crawld's
 * SSRF guard must keep every one of their requests from it (its `requests` stays 0).
 */
export interface JsSite {
  readonly port: number;
  readonly origin: string;
  readonly secret: { readonly port: number; requests: number };
  /** Requests per path on the site. */
  readonly hits: Map<string, number>;
  /** Every request target the site received, as its request line had it (`/x?` keeps its `?`). */
  readonly targets: string[];
  close(): Promise<void>;
}

export const CHROMIUM = '/usr/bin/chromium';

/** A missing Chromium is a failure, never a skip: a green run must mean the browser path ran. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} missing: run scripts/setup-test-env.sh`);
}

/** The `fetch` config of a crawl of 127.0.0.1:port through Chromium (`browser`: more fetch.browser keys). */
export function browserFetch(port: number, browser: Record<string, unknown> = {}) {
  return { allowAddresses: [`127.0.0.1:${port}`], browser: { executablePath: CHROMIUM, ...browser } };
}

const html = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body>${body}</body></html>`;

/** A product page as a shop renders it client-side: an empty shell and a script. */
function shell(id: number): string {
  return html(`<div id="app">loading</div><script>
fetch('/api/products/${id}.json').then((r) => r.json()).then((p) => {
  document.getElementById('app').innerHTML =
    '<h1 class="title">' + p.title + '</h1><span class="price">' + p.price + '</span>' +
    p.links.map((l) => '<a class="product" href="' + l + '">' + l + '</a>').join('');
});
</script>`);
}

function pages(secret: number): Record<string, (res: http.ServerResponse) => void> {
  const page = (body: string) => (res: http.ServerResponse) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html(body));
  const secretUrl = `http://127.0.0.1:${secret}/internal`;
  return {
    // Subresources aimed at another loopback server: fetch, iframe, image, script.
    '/ssrf': page(`<h1 class="title">ssrf</h1><iframe src="${secretUrl}?iframe"></iframe>
<script src="${secretUrl}?script"></script>
<script>fetch('${secretUrl}?fetch').catch(() => {}); var x = new XMLHttpRequest(); x.open('GET', '${secretUrl}?xhr'); x.send();</script>`),
    // networkidle never comes: a request every 100 ms, for ever, each held 1.5 s, so that one is
    // in flight even while a loaded machine delays the page's timers by a second.
    '/never-idle': page(
      `<h1 class="title">busy</h1><script>setInterval(() => fetch('/api/slow?' + Math.random()).catch(() => {}), 100);</script>`,
    ),
    // A client-side redirect loop between two pages.
    '/loop-a': page(`<script>location.href = '/loop-b';</script>`),
    '/loop-b': page(`<script>location.href = '/loop-a';</script>`),
    // A window.open storm.
    '/popups': page(
      `<h1 class="title">popups</h1><script>for (let i = 0; i < 50; i++) window.open('/products/1?popup=' + i);</script>`,
    ),
    // Spins its main thread for ever once loaded: the DOM can never be read.
    '/busy': page(
      `<h1 class="title">busy</h1><script>addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));</script>`,
    ),
    // Allocates until the tab dies.
    '/hog': page(`<script>const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random()));</script>`),
    // alert(), confirm() and prompt() block a page until dismissed.
    '/alert': page(
      `<script>alert('hi'); confirm('sure?'); prompt('name?'); document.body.insertAdjacentHTML('beforeend', '<h1 class="title">after dialogs</h1>');</script>`,
    ),
    // A script sending the page to a loopback address that is not allowed.
    '/private-nav': page(`<script>location.href = '${secretUrl}?nav';</script>`),
    // Navigation to data: and file: URLs.
    '/data-nav': page(
      `<h1 class="title">data</h1><script>location.href = 'data:text/html,<h1>x</h1>';</script>`,
    ),
    // A script whose request has an empty query (`/api/echo?`): the page shows the request
    // target the server received, as a browser would have sent it.
    '/empty-query': page(
      `<div id="app"></div><script>fetch('/api/echo?').then((r) => r.text()).then((t) => { document.getElementById('app').innerHTML = '<h1 class="title">' + t + '</h1>'; });</script>`,
    ),
    // Slow renders, for shutdown and crash tests: the product data comes after 1.5 s.
    '/slow': page(
      `<div id="app"></div><script>fetch('/api/slow').then((r) => r.text()).then((t) => { document.getElementById('app').innerHTML = '<h1 class="title">' + t + '</h1>'; });</script>`,
    ),
  };
}

export async function startJsSite(products = 5): Promise<JsSite> {
  const secretState = { port: 0, requests: 0 };
  const secret = http.createServer((_req, res) => {
    secretState.requests++;
    res.writeHead(200, { 'content-type': 'text/html' }).end('secret');
  });
  await new Promise<void>((r) => secret.listen(0, '127.0.0.1', r));
  secretState.port = (secret.address() as AddressInfo).port;
  const routes = pages(secretState.port);
  const hits = new Map<string, number>();
  const targets: string[] = [];
  const server = http.createServer((req, res) => {
    targets.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://x');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const route = routes[url.pathname];
    if (route) return route(res);
    let m = /^\/products\/(\d+)$/.exec(url.pathname);
    if (m) {
      return res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(shell(Number(m[1])));
    }
    m = /^\/api\/products\/(\d+)\.json$/.exec(url.pathname);
    if (m) {
      const id = Number(m[1]);
      const links = [id + 1, id * 2].filter((n) => n <= products).map((n) => `/products/${n}`);
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ title: `Product ${id}`, price: (id * 1.5).toFixed(2), links }));
    }
    if (url.pathname === '/api/echo')
      return res.writeHead(200, { 'content-type': 'text/plain' }).end(req.url);
    // A page that opens a session in its document's response and reads it from its script's
    // API call: rendered right only if the page's requests carry the cookie jar.
    if (url.pathname === '/account') {
      return res
        .writeHead(200, {
          'content-type': 'text/html; charset=utf-8',
          'set-cookie': 'sid=J5; Path=/; HttpOnly',
        })
        .end(
          html(`<div id="app"></div><script>
fetch('/api/me').then((r) => r.ok ? r.json() : { name: 'anonymous' }).then((me) => {
  document.getElementById('app').innerHTML = '<h1 class="title">' + me.name + '</h1>';
});
</script>`),
        );
    }
    if (url.pathname === '/api/me') {
      const ok = /(?:^|;\s*)sid=J5(?:;|$)/.test(req.headers.cookie ?? '');
      return ok
        ? res.writeHead(200, { 'content-type': 'application/json' }).end('{"name":"signed in"}')
        : res.writeHead(401, { 'content-type': 'application/json' }).end('{}');
    }
    if (url.pathname === '/api/slow') {
      const t = setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('slow done'), 1500);
      res.on('close', () => clearTimeout(t));
      return;
    }
    if (url.pathname === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    secret: secretState,
    hits,
    targets,
    close: async () => {
      for (const s of [server, secret]) {
        s.closeAllConnections();
        await new Promise<void>((r) => s.close(() => r()));
      }
    },
  };
}

/** Chromium processes started by `root` (its descendants whose command line names chrom*). */
export function chromiumPids(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const descends = (pid: number): boolean => {
    for (let p = parent.get(pid), n = 0; p !== undefined && n < 64; p = parent.get(p), n++)
      if (p === root) return true;
    return false;
  };
  return [...parent.keys()].filter((pid) => {
    if (!descends(pid)) return false;
    try {
      return /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, 'latin1').split('\0')[0] ?? '');
    } catch {
      return false;
    }
  });
}

/** The browser process itself: the chromium descendant without a --type= (renderer, gpu, ...). */
export function browserPid(root: number): number | undefined {
  return chromiumPids(root).find((pid) => {
    try {
      return !readFileSync(`/proc/${pid}/cmdline`, 'latin1').includes('--type=');
    } catch {
      return false;
    }
  });
}

export function alive(pid: number): boolean {
  try {
    // A zombie still answers kill(0): read its state instead.
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
