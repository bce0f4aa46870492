/**
 * ReplayWeb.page's embed served on 127.0.0.1, as its embedding guide lays it out: a page with
 * `<replay-web-page>` and ui.js, the service worker at /replay/sw.js (its scope is /replay/),
 * and the archive itself as a static file. The package comes from node_modules (devDependency
 * `replaywebpage`): its ui.js and sw.js are whole bundles, nothing else of it is loaded.
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type BrowserContext, chromium, type Frame } from 'playwright-core';
import { CHROMIUM } from './js-site.js';
import { waitFor } from './wait.js';

/** The package's folder (its exports name index.html, not package.json). */
export function replayWebPageDir(): string {
  try {
    return dirname(createRequire(import.meta.url).resolve('replaywebpage/index.html'));
  } catch (err) {
    throw new Error('replaywebpage missing from node_modules: run npm ci', { cause: err });
  }
}

export interface ReplayServer {
  readonly origin: string;
  /** The embed page replaying `url` (the archived URL) from the archive, at `ts` (14 digits) or the latest. */
  embedUrl(url: string, ts?: string): string;
  /** Paths the server was asked for. */
  readonly requests: string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript',
  '.gz': 'application/octet-stream',
  '.html': 'text/html; charset=utf-8',
};

function embedPage(source: string, url: string, ts: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>replay</title>
<script src="/ui.js"></script>
<style>html, body { margin: 0; height: 100%; } replay-web-page { display: block; height: 100vh; }</style>
</head><body>
<replay-web-page source="${source}" url="${url}" ts="${ts}" replayBase="/replay/" embed="replayonly"></replay-web-page>
</body></html>`;
}

/** Serves the embed for one archive file (a `.warc.gz`). */
export async function startReplayServer(
  warcFile: string,
  rwpDir = replayWebPageDir(),
): Promise<ReplayServer> {
  const archivePath = `/archive/${basename(warcFile)}`;
  const files = new Map<string, string>([
    ['/ui.js', join(rwpDir, 'ui.js')],
    ['/replay/ui.js', join(rwpDir, 'ui.js')],
    ['/replay/sw.js', join(rwpDir, 'sw.js')],
    [archivePath, warcFile],
  ]);
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    requests.push(url.pathname);
    if (url.pathname === '/blank') {
      return res
        .writeHead(200, { 'content-type': TYPES['.html']! })
        .end('<!doctype html><title>blank</title>');
    }
    if (url.pathname === '/embed') {
      const body = embedPage(
        archivePath,
        url.searchParams.get('url') ?? '',
        url.searchParams.get('ts') ?? '',
      );
      return res.writeHead(200, { 'content-type': TYPES['.html']! }).end(body);
    }
    const file = files.get(url.pathname);
    if (!file) return res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    const ext = file.slice(file.lastIndexOf('.'));
    const size = statSync(file).size;
    const headers = {
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'content-length': String(size),
      'accept-ranges': 'bytes',
      'cache-control': 'no-store',
    };
    if (req.method === 'HEAD') return res.writeHead(200, headers).end();
    const range = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? '');
    if (range) {
      const start = Number(range[1]);
      const end = range[2] ? Math.min(Number(range[2]), size - 1) : size - 1;
      const part = readFileSync(file).subarray(start, end + 1);
      return res
        .writeHead(206, {
          ...headers,
          'content-length': String(part.length),
          'content-range': `bytes ${start}-${end}/${size}`,
        })
        .end(part);
    }
    res.writeHead(200, headers).end(readFileSync(file));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    embedUrl: (url, ts = '') => `${origin}/embed?url=${encodeURIComponent(url)}&ts=${ts}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}

/** 127.0.0.0/8 only (and the page's own data: and blob: URLs). */
function loopback(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  if (protocol === 'data:' || protocol === 'blob:') return true;
  return /^127\.\d+\.\d+\.\d+$/.test(hostname);
}

export interface ReplayBrowser {
  readonly context: BrowserContext;
  /** Requests aborted because they were not for 127.0.0.0/8. */
  readonly blocked: string[];
  close(): Promise<void>;
}

/**
 * Chromium with a fresh profile in which every request to anything but 127.0.0.0/8 is aborted;
 * anything that slipped past the route would go to the proxy, a closed port on 127.0.0.1.
 */
export async function launchReplayBrowser(): Promise<ReplayBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'crawld-replay-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--proxy-server=http://127.0.0.1:9',
    ],
  });
  const blocked: string[] = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (loopback(url)) return route.continue();
    blocked.push(url);
    return route.abort('blockedbyclient');
  });
  return {
    context,
    blocked,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The frame ReplayWeb.page shows `url` in: /replay/w/COLL/[TS]mp_/URL. */
function replayedFrame(frames: readonly Frame[], url: string): Frame | undefined {
  return frames.find((f) => {
    const m = /\/w\/[^/]+\/\d*mp_\/(.+)$/.exec(f.url());
    return m !== null && m[1] === url;
  });
}

/** The script URL and scope `<replay-web-page replayBase="/replay/">` registers (ui.js, embed mode). */
const SERVICE_WORKER = { script: '/replay/sw.js?serveIndex=1', scope: '/replay/' };

/** The part of the page's `navigator.serviceWorker` used here (the tests compile without the DOM lib). */
interface ServiceWorkerState {
  readonly state: string;
  addEventListener(type: 'statechange', listener: () => void): void;
}
interface ServiceWorkers {
  register(
    script: string,
    options: { scope: string },
  ): Promise<{
    installing: ServiceWorkerState | null;
    waiting: ServiceWorkerState | null;
    active: ServiceWorkerState | null;
  }>;
}

/**
 * Registers ReplayWeb.page's service worker on the server's origin and waits until it is active,
 * as it is on any visit after a reader's first. The embed itself waits only for the registration,
 * not the activation, before it loads its frame: on a busy machine the frame's navigation then
 * reaches the network (a 404 here) instead of the worker, which is ReplayWeb.page's first-visit
 * race, not a property of the archive under test.
 */
async function activateServiceWorker(browser: ReplayBrowser, server: ReplayServer): Promise<void> {
  const page = await browser.context.newPage();
  try {
    await page.goto(`${server.origin}/blank`);
    await page.evaluate(async ({ script, scope }) => {
      const workers = (globalThis as unknown as { navigator: { serviceWorker: ServiceWorkers } }).navigator
        .serviceWorker;
      const registration = await workers.register(script, { scope });
      const worker = registration.installing ?? registration.waiting ?? registration.active;
      if (!worker) throw new Error('no service worker after register()');
      if (worker.state === 'activated') return;
      await new Promise<void>((resolve, reject) => {
        worker.addEventListener('statechange', () => {
          if (worker.state === 'activated') resolve();
          if (worker.state === 'redundant') reject(new Error('service worker became redundant'));
        });
      });
    }, SERVICE_WORKER);
  } finally {
    await page.close();
  }
}

const activated = new WeakMap<ReplayBrowser, Set<string>>();

/**
 * Opens the embed for `url` (at `ts`) in a new tab and returns the frame of the replayed
 * document once it has loaded: the frame of `shows` (a redirect's target) when given.
 */
export async function openReplay(
  browser: ReplayBrowser,
  server: ReplayServer,
  url: string,
  options: { ts?: string; shows?: string } = {},
): Promise<Frame> {
  const origins = activated.get(browser) ?? new Set<string>();
  activated.set(browser, origins);
  if (!origins.has(server.origin)) {
    await activateServiceWorker(browser, server);
    origins.add(server.origin);
  }
  const page = await browser.context.newPage();
  const served = server.requests.length;
  await page.goto(server.embedUrl(url, options.ts));
  const shown = options.shows ?? url;
  const frame = await waitFor(() => replayedFrame(page.frames(), shown), {
    what: `${url} replayed as ${shown}`,
    deadlineMs: 60_000,
  }).catch((err: Error) => {
    const frames = page.frames().map((f) => f.url());
    const asked = server.requests.slice(served);
    const blocked = browser.blocked.join(' ') || 'none';
    throw new Error(
      `${err.message}; frames: ${frames.join(' | ')}; served: ${asked.join(' ')}; blocked: ${blocked}`,
    );
  });
  await frame.waitForLoadState('load');
  return frame;
}
