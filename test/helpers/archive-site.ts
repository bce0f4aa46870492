/**
 * A site for the WARC tests: the same kind of page sent plain, gzip-encoded, chunked and both,
 * a redirect, robots.txt, a cookie, an ETag that answers 304, and incompressible pages to make
 * files roll over. It keeps the entity body it sent for each path (encoded bytes as written).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface ArchiveSite {
  readonly origin: string;
  readonly port: number;
  /** The entity body last sent for each path (after content coding, without chunk framing). */
  readonly sent: Map<string, Buffer>;
  /** Each request: path and status. */
  readonly seen: { path: string; status: number }[];
  /** The request line and header lines of the last request for each path, as the server read them. */
  readonly heads: Map<string, string[]>;
  close(): Promise<void>;
}

export const SECRET_COOKIE = 'session=c00kie-s3cret';
export const ARCHIVE_PAGES = ['/plain', '/gzip', '/chunked', '/chunked-gzip', '/redirect', '/etag'];

const page = (title: string, extra = '') =>
  Buffer.from(
    `<html><head><title>${title}</title></head><body><h1>${title}</h1>${extra}<p>${'lorem ipsum '.repeat(300)}</p></body></html>`,
  );

export async function startArchiveSite(
  options: { bigPages?: number; bigBytes?: number; hostile?: boolean } = {},
): Promise<ArchiveSite> {
  const sent = new Map<string, Buffer>();
  const seen: { path: string; status: number }[] = [];
  const heads = new Map<string, string[]>();
  const big = Array.from({ length: options.bigPages ?? 0 }, (_, i) =>
    page(`big ${i}`, `<pre>${randomBytes(options.bigBytes ?? 20_000).toString('base64')}</pre>`),
  );
  const hostile = options.hostile ? ['/reset', '/endless'] : [];
  const links = [...ARCHIVE_PAGES, ...hostile, ...big.map((_, i) => `/big/${i}`)]
    .map((p) => `<a href="${p}">${p}</a>`)
    .join('');
  const index = page('home', links);
  const gz = (b: Buffer) => gzipSync(b);
  const send = (
    res: ServerResponse,
    path: string,
    status: number,
    headers: Record<string, string>,
    body: Buffer,
    chunks = 1,
  ) => {
    seen.push({ path, status });
    res.writeHead(status, headers);
    sent.set(path, body);
    const step = Math.ceil(body.length / chunks);
    for (let i = 0; i < body.length; i += step) res.write(body.subarray(i, i + step));
    res.end();
  };
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const lines = [`${req.method} ${path} HTTP/${req.httpVersion}`];
    for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    heads.set(path, lines);
    const html = { 'content-type': 'text/html; charset=utf-8' };
    const sized = (b: Buffer) => ({ ...html, 'content-length': String(b.length) });
    if (path === '/robots.txt') {
      const body = Buffer.from('User-agent: *\nDisallow: /private\n');
      return send(
        res,
        path,
        200,
        { 'content-type': 'text/plain', 'content-length': String(body.length) },
        body,
      );
    }
    if (path === '/')
      return send(res, path, 200, { ...sized(index), 'set-cookie': `${SECRET_COOKIE}; Path=/` }, index);
    if (path === '/plain') return send(res, path, 200, sized(page('plain')), page('plain'));
    if (path === '/gzip') {
      const body = gz(page('gzip'));
      return send(res, path, 200, { ...sized(body), 'content-encoding': 'gzip' }, body);
    }
    // No Content-Length and several writes: Node sends Transfer-Encoding: chunked.
    if (path === '/chunked') return send(res, path, 200, html, page('chunked'), 3);
    if (path === '/chunked-gzip')
      return send(res, path, 200, { ...html, 'content-encoding': 'gzip' }, gz(page('chunked gzip')), 3);
    if (path === '/redirect')
      return send(res, path, 301, { location: '/moved', 'content-length': '0' }, Buffer.alloc(0));
    if (path === '/moved') return send(res, path, 200, sized(page('moved')), page('moved'));
    if (path === '/etag') {
      if (req.headers['if-none-match'] === '"v1"')
        return send(res, path, 304, { etag: '"v1"' }, Buffer.alloc(0));
      return send(res, path, 200, { ...sized(page('etag')), etag: '"v1"' }, page('etag'));
    }
    // Hostile: a body cut by a reset, and one that never ends.
    if (path === '/reset') {
      seen.push({ path, status: 200 });
      res.writeHead(200, { ...html, 'content-length': '100000' });
      res.write(page('reset'));
      setImmediate(() => res.socket?.destroy());
      return;
    }
    if (path === '/endless') {
      seen.push({ path, status: 200 });
      res.writeHead(200, html);
      const chunk = Buffer.alloc(64 * 1024, 'x');
      const more = () => {
        while (res.write(chunk)) if (res.destroyed) return;
        res.once('drain', more);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      return more();
    }
    const m = /^\/big\/(\d+)$/.exec(path);
    const b = m ? big[Number(m[1])] : undefined;
    if (b) return send(res, path, 200, sized(b), b);
    return send(
      res,
      path,
      404,
      { 'content-type': 'text/plain', 'content-length': '9' },
      Buffer.from('not found'),
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    sent,
    seen,
    heads,
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r());
        server.closeAllConnections();
      }),
  };
}
