/**
 * One HTTP server on 127.0.0.1 whose routes misbehave in every way the hardening suite
 * covers. Each route counts its requests, so tests can tell a deferral from a hot loop.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';

const MiB = 1024 * 1024;

export interface HostileServer {
  readonly port: number;
  /** http://127.0.0.1:PORT */
  readonly origin: string;
  /** Requests seen per path (query included). */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Every route of the server with what it does; tests seed from this list. */
export const HOSTILE_ROUTES = {
  endless: '/endless',
  huge: '/huge',
  gzipBomb: '/gzip-bomb',
  drip: '/drip',
  stallHeaders: '/stall-headers',
  /** Header lines forever, never the blank line that ends them. */
  endlessHeaders: '/endless-headers',
  reset: '/reset',
  redirectLoop: '/loop/a',
  malformed: '/malformed',
  badUtf8: '/bad-utf8',
  manyLinks: '/links',
  /** 200 000 nested <div> (1.2 MB): minutes of CPU in an HTML parser if parsed. */
  deepNesting: '/deep',
  nonHtml: '/image.png',
  lyingLength: '/lie',
  /** Declares fewer bytes than it sends: the excess must not leak into the next response. */
  overlongBody: '/lie-long',
  storm: '/storm/',
  retryAfter: '/retry-after',
} as const;

export const MANY_LINKS = 100_000;
export const OVERLONG_TITLE = 'declared';

/** 200 x 1 MiB of zeros as concatenated gzip members: ~200 KiB on the wire. */
function gzipBomb(): Buffer {
  const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
  return Buffer.concat(Array.from({ length: 200 }, () => member));
}

function manyLinksPage(): Buffer {
  const parts = ['<!DOCTYPE html><html><head><title>links</title></head><body>'];
  for (let i = 0; i < MANY_LINKS; i++) parts.push(`<a href=/l/${i}>${i}</a>`);
  parts.push('</body></html>');
  return Buffer.from(parts.join(''));
}

const MALFORMED = `<html><head><title>Broken</title><body><div><p>unclosed <b><i>misnested</b></i>
<table><tr><td>cell<td>cell<tr></table></table></div></span><<<>>> <a href="/l/malformed">x</a
<script>var x = "</div>";</script><!-- unterminated comment`;

/** text/html with bytes that are not UTF-8 at all (lone continuation, overlong, 0xFF). */
const BAD_UTF8 = Buffer.concat([
  Buffer.from('<html><head><title>caf'),
  Buffer.from([0xe9, 0x80, 0xc0, 0xaf, 0xff, 0xfe]),
  Buffer.from('</title></head><body>ok</body></html>'),
]);

function pump(res: http.ServerResponse, chunk: Buffer): void {
  const go = () => {
    while (!res.destroyed) if (!res.write(chunk)) return void res.once('drain', go);
  };
  go();
}

export async function startHostileServer(): Promise<HostileServer> {
  const bomb = gzipBomb();
  const links = manyLinksPage();
  const deep = Buffer.from(
    `<html><body>${'<div>'.repeat(200_000)}x${'</div>'.repeat(200_000)}</body></html>`,
  );
  const hits = new Map<string, number>();
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const zeros = Buffer.alloc(64 * 1024, 'a');

  const server = http.createServer((req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const html = (body: string | Buffer) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    if (path === HOSTILE_ROUTES.endless) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return pump(res, zeros);
    }
    if (path === HOSTILE_ROUTES.huge) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(1024 * MiB) });
      return pump(res, zeros);
    }
    if (path === HOSTILE_ROUTES.gzipBomb) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      return void res.end(bomb);
    }
    if (path === HOSTILE_ROUTES.drip) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
      const t = setInterval(() => (res.destroyed ? clearInterval(t) : res.write('x')), 1000);
      timers.add(t);
      return;
    }
    if (path === HOSTILE_ROUTES.stallHeaders) {
      // Half a header block, then silence with the socket held open.
      return void req.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/ht');
    }
    if (path === HOSTILE_ROUTES.endlessHeaders) {
      req.socket.write('HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n');
      const line = `X-Filler: ${'a'.repeat(1000)}\r\n`;
      const t = setInterval(() => (req.socket.destroyed ? clearInterval(t) : req.socket.write(line)), 5);
      timers.add(t);
      return;
    }
    if (path === HOSTILE_ROUTES.reset) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      return void res.write('x'.repeat(1000), () => setTimeout(() => req.socket.resetAndDestroy(), 20));
    }
    if (path === '/loop/a' || path === '/loop/b') {
      res.writeHead(302, { location: path === '/loop/a' ? '/loop/b' : '/loop/a' });
      return void res.end();
    }
    if (path === HOSTILE_ROUTES.malformed) return html(MALFORMED);
    if (path === HOSTILE_ROUTES.badUtf8) return html(BAD_UTF8);
    if (path === HOSTILE_ROUTES.manyLinks) return html(links);
    if (path === HOSTILE_ROUTES.deepNesting) return html(deep);
    if (path.startsWith('/l/')) return html(`<title>leaf ${path}</title>`);
    if (path === HOSTILE_ROUTES.nonHtml) {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4096' });
      return void res.end(Buffer.alloc(4096, 0x89));
    }
    if (path === HOSTILE_ROUTES.lyingLength) {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100000' });
      return void res.write('<title>short</title>', () => req.socket.end());
    }
    if (path === HOSTILE_ROUTES.overlongBody) {
      const page = `<title>${OVERLONG_TITLE}</title>`;
      const junk = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nforged'.repeat(50);
      return void req.socket.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${page.length}\r\n\r\n${page}${junk}`,
      );
    }
    if (path.startsWith(HOSTILE_ROUTES.storm)) {
      res.writeHead(429, { 'content-type': 'text/plain' });
      return void res.end('slow down');
    }
    if (path === HOSTILE_ROUTES.retryAfter) {
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '86400' });
      return void res.end('come back tomorrow');
    }
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('not found');
  });
  // Idle keep-alive sockets stay open for the whole test: a close racing a reused socket would
  // add a 'connection' error the assertions do not expect.
  server.keepAliveTimeout = 120_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    hits: (path) => hits.get(path) ?? 0,
    async close() {
      for (const t of timers) clearInterval(t);
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Sums a Prometheus text exposition's samples of `name` whose labels include `labels`. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const have = Object.fromEntries(
      [...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]),
    );
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) sum += Number(m[2]);
  }
  return sum;
}

/** Resident set size of a live process in bytes, from /proc (Linux). */
export async function rssBytes(pid: number): Promise<number> {
  const { readFile } = await import('node:fs/promises');
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(status);
  if (!kb) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(kb[1]) * 1024;
}
