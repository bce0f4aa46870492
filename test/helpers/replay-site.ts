/**
 * A small site for the replay test (test/e2e/warc-replay.test.ts): pages sent plain,
 * gzip-encoded, chunked and both, a redirect, a page with a stylesheet and an image, a page too
 * big to share a small WARC file and one with an ETag. Each page has a title and one paragraph
 * that the replayed document must show again.
 */

import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { crc32, deflateSync, gzipSync } from 'node:zlib';
import { type Site, startSite } from './engine.js';

export interface ReplayPage {
  readonly path: string;
  readonly title: string;
  readonly text: string;
  /** How the body crossed the wire. */
  readonly encoding: 'plain' | 'gzip';
  readonly chunked: boolean;
}

/** 128 KB of text that gzip cannot shrink below 64 KiB: its exchange gets a WARC file of its own. */
const BIG_TEXT = Buffer.concat(
  Array.from({ length: 3000 }, (_, i) => createHash('sha256').update(String(i)).digest()),
).toString('base64');

export const REPLAY_PAGES: readonly ReplayPage[] = [
  { path: '/', title: 'Home of the shop', text: 'Welcome: plain bytes.', encoding: 'plain', chunked: false },
  {
    path: '/gzip',
    title: 'Gzip page',
    text: 'Sent with Content-Encoding: gzip.',
    encoding: 'gzip',
    chunked: false,
  },
  {
    path: '/chunked',
    title: 'Chunked page',
    text: 'Sent in three chunks.',
    encoding: 'plain',
    chunked: true,
  },
  {
    path: '/chunked-gzip',
    title: 'Chunked gzip page',
    text: 'Gzip-encoded and chunked.',
    encoding: 'gzip',
    chunked: true,
  },
  { path: '/moved', title: 'Moved here', text: 'The redirect target.', encoding: 'plain', chunked: false },
  {
    path: '/styled',
    title: 'Styled page',
    text: 'A stylesheet and an image.',
    encoding: 'plain',
    chunked: false,
  },
  { path: '/big', title: 'Big page', text: BIG_TEXT, encoding: 'plain', chunked: false },
  {
    path: '/etag',
    title: 'Validated page',
    text: 'An ETag: a recrawl gets a 304.',
    encoding: 'plain',
    chunked: false,
  },
];

/** The one page with a validator: a conditional request with it gets 304 Not Modified. */
export const ETAG_PAGE = { path: '/etag', etag: '"v1"' } as const;

/** `/redirect` answers 301 to this page. */
export const REDIRECT = { from: '/redirect', to: '/moved' } as const;
/** The colour /style.css gives h1 (as getComputedStyle writes it). */
export const H1_COLOR = 'rgb(12, 34, 56)';
export const LOGO_SIZE = { width: 7, height: 3 } as const;

/** A PNG of width × height red pixels, written out: signature, IHDR, IDAT, IEND. */
export function png(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3, Buffer.from([200, 0, 0]))]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

export const CSS = Buffer.from(`h1 { color: ${H1_COLOR}; }\n`);
export const LOGO = png(LOGO_SIZE.width, LOGO_SIZE.height);

function html(p: ReplayPage): Buffer {
  const head =
    p.path === '/styled' ? '<link rel="stylesheet" href="/style.css">' : '<meta name="x" content="y">';
  const body = p.path === '/styled' ? '<img id="logo" src="/logo.png" alt="logo">' : '';
  const links =
    p.path === '/'
      ? [
          ...REPLAY_PAGES.filter((q) => q.path !== '/' && q.path !== REDIRECT.to).map((q) => q.path),
          REDIRECT.from,
        ]
          .map((href) => `<a href="${href}">${href}</a>`)
          .join(' ')
      : '';
  return Buffer.from(
    `<!doctype html><html><head><meta charset="utf-8"><title>${p.title}</title>${head}</head>` +
      `<body><h1>${p.title}</h1><p id="text">${p.text}</p>${body}<nav>${links}</nav></body></html>`,
  );
}

/** The replay site: test/helpers/engine.ts's Site (hits are request targets). */
export type ReplaySite = Site;

export async function startReplaySite(): Promise<ReplaySite> {
  const send = (res: ServerResponse, headers: Record<string, string>, body: Buffer, chunks: number) => {
    if (chunks === 1) headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    // No Content-Length and several writes: Node sends Transfer-Encoding: chunked.
    const step = Math.ceil(body.length / chunks);
    for (let i = 0; i < body.length; i += step) res.write(body.subarray(i, i + step));
    res.end();
  };
  return startSite((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const page = REPLAY_PAGES.find((p) => p.path === path);
    if (page) {
      const headers: Record<string, string> = { 'content-type': 'text/html; charset=utf-8' };
      if (path === ETAG_PAGE.path) {
        headers.etag = ETAG_PAGE.etag;
        if (req.headers['if-none-match'] === ETAG_PAGE.etag)
          return res.writeHead(304, { etag: ETAG_PAGE.etag }).end();
      }
      let body = html(page);
      if (page.encoding === 'gzip') {
        headers['content-encoding'] = 'gzip';
        body = gzipSync(body);
      }
      return send(res, headers, body, page.chunked ? 3 : 1);
    }
    if (path === REDIRECT.from)
      return res.writeHead(301, { location: REDIRECT.to, 'content-length': '0' }).end();
    if (path === '/style.css') return send(res, { 'content-type': 'text/css' }, CSS, 1);
    if (path === '/logo.png') return send(res, { 'content-type': 'image/png' }, LOGO, 1);
    if (path === '/robots.txt')
      return send(res, { 'content-type': 'text/plain' }, Buffer.from('User-agent: *\n'), 1);
    res.writeHead(404, { 'content-type': 'text/plain', 'content-length': '9' }).end('not found');
  });
}
