/**
 * ReplayWeb.page's embed served on 127.0.0.1, as its embedding guide lays it out: a page with
 * `<replay-web-page>` and ui.js, the service worker at /replay/sw.js (its scope is /replay/),
 * and the archive itself as a static file. The package comes from node_modules (devDependency
 * `replaywebpage`): its ui.js and sw.js are whole bundles, nothing else of it is loaded.
 */
import { readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { basename, dirname, join } from 'node:path';

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
  /** The embed page replaying `url` (the archived URL) from the archive. */
  embedUrl(url: string): string;
  /** Paths the server was asked for. */
  readonly requests: string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  '.js': 'application/javascript',
  '.gz': 'application/octet-stream',
  '.html': 'text/html; charset=utf-8',
};

function embedPage(source: string, url: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><title>replay</title>
<script src="/ui.js"></script>
<style>html, body { margin: 0; height: 100%; } replay-web-page { display: block; height: 100vh; }</style>
</head><body>
<replay-web-page source="${source}" url="${url}" replayBase="/replay/" embed="replayonly"></replay-web-page>
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
    if (url.pathname === '/embed') {
      const body = embedPage(archivePath, url.searchParams.get('url') ?? '');
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
    embedUrl: (url) => `${origin}/embed?url=${encodeURIComponent(url)}`,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
