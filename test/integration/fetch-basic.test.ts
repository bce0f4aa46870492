import type { LookupFunction } from 'node:net';
import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_FETCHER_OPTIONS } from '../../src/adapters/fetch/fetch-options.js';
import { UndiciFetcher } from '../../src/adapters/fetch/undici-fetcher.js';
import { ContentTypeError, FetchError, InvalidArgumentError } from '../../src/core/errors.js';
import { closeAll, html, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';
import { waitFor } from '../helpers/wait.js';

afterEach(closeAll);

const PAGE = `<!doctype html><title>ok</title>${'<p>hello crawler</p>'.repeat(500)}`;

describe('UndiciFetcher: content', () => {
  it.each([
    ['gzip', (b: Buffer) => zlib.gzipSync(b)],
    ['x-gzip', (b: Buffer) => zlib.gzipSync(b)],
    ['br', (b: Buffer) => zlib.brotliCompressSync(b)],
    ['deflate', (b: Buffer) => zlib.deflateSync(b)],
    ['deflate', (b: Buffer) => zlib.deflateRawSync(b)],
    ['identity', (b: Buffer) => b],
  ])('decodes Content-Encoding %s', async (encoding, encode) => {
    const wire = encode(Buffer.from(PAGE));
    let seen: Record<string, string | string[] | undefined> = {};
    const server = await startServer((req, res) => {
      seen = req.headers;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-encoding': encoding });
      res.end(wire);
    });
    const res = await makeFetcher().fetch({ url: `${server.origin}/page` });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe(PAGE);
    expect(res.wireBytes).toBe(wire.length);
    expect(res.contentType).toBe('text/html');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.url).toBe(`${server.origin}/page`);
    expect(res.redirects).toEqual([]);
    expect(res.ttfbMs).toBeGreaterThanOrEqual(0);
    expect(res.totalMs).toBeGreaterThanOrEqual(res.ttfbMs);
    expect(seen['accept-encoding']).toBe('gzip, deflate, br');
    expect(seen['user-agent']).toBe(DEFAULT_FETCHER_OPTIONS.userAgent);
  });

  it('lets request headers override defaults and joins repeated response headers', async () => {
    let ua: string | undefined;
    const server = await startServer((req, res) => {
      ua = req.headers['user-agent'];
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      html('x')(req, res);
    });
    const res = await makeFetcher().fetch({ url: server.origin, headers: { 'User-Agent': 'custom/1' } });
    expect(ua).toBe('custom/1');
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
  });

  it('ttfb covers the server think time before headers', async () => {
    const server = await startServer((_req, res) => {
      setTimeout(() => html('late')(_req, res), 150);
    });
    const res = await makeFetcher().fetch({ url: server.origin });
    expect(res.ttfbMs).toBeGreaterThanOrEqual(140);
    // The 150 ms are the server's, not the crawler's own wait (queuedMs is part of ttfbMs).
    expect(res.queuedMs).toBeGreaterThanOrEqual(0);
    expect(res.ttfbMs - res.queuedMs!).toBeGreaterThanOrEqual(140);
  });

  it('ttfb starts when the request is written, after DNS and connect', async () => {
    const server = await startServer(html('fast'));
    const slowDns: LookupFunction = (_host, _opts, cb) => {
      setTimeout(() => cb(null, [{ address: '127.0.0.1', family: 4 }]), 250);
    };
    const res = await makeFetcher({ lookup: slowDns }).fetch({ url: `http://slow-dns.test:${server.port}/` });
    expect(res.totalMs).toBeGreaterThanOrEqual(240);
    // The 250 ms of DNS are in totalMs and not in ttfbMs.
    expect(res.totalMs - res.ttfbMs).toBeGreaterThanOrEqual(240);
  });

  it('opens at most connectionsPerHost sockets to one origin', async () => {
    const server = await startServer((req, res) => {
      setTimeout(() => html('slow')(req, res), 100);
    });
    const fetcher = makeFetcher({ connectionsPerHost: 2 });
    const all = await Promise.all(
      Array.from({ length: 6 }, (_, i) => fetcher.fetch({ url: `${server.origin}/${i}` })),
    );
    expect(all.every((r) => r.status === 200)).toBe(true);
    expect(server.connections).toBe(2);
  });

  it('rejects a 2xx of a non-accepted type with ContentTypeError without downloading it', async () => {
    let aborted: boolean | undefined;
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(Buffer.alloc(64 * 1024));
      // A big body the fetcher must not wait for: it should hang up instead.
      res.on('close', () => {
        aborted = !res.writableFinished;
      });
      setTimeout(() => res.end(Buffer.alloc(64 * 1024)), 1_500).unref();
    });
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(ContentTypeError);
    expect(err.message).toContain('image/png');
    await waitFor(() => aborted !== undefined, 'the response to close');
    expect(aborted).toBe(true);
  });

  it('returns non-2xx responses of other types with their status and an empty body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'application/octet-stream' });
      res.end('binary');
    });
    const res = await makeFetcher().fetch({ url: server.origin });
    expect(res.status).toBe(404);
    expect(res.body.length).toBe(0);
  });

  it('accepts wildcard types and a missing Content-Type', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/css') res.writeHead(200, { 'content-type': 'text/css' });
      res.end('body');
    });
    const fetcher = makeFetcher({ acceptContentTypes: ['text/*'] });
    expect((await fetcher.fetch({ url: `${server.origin}/css` })).body.toString()).toBe('body');
    const bare = await fetcher.fetch({ url: `${server.origin}/none` });
    expect(bare.contentType).toBe('');
    expect(bare.body.toString()).toBe('body');
  });

  it('HEAD resolves with headers and an empty body', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': '5000' });
      res.end();
    });
    const res = await makeFetcher().fetch({ url: server.origin, method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/pdf');
    expect(res.body.length).toBe(0);
  });

  it('an empty body with Content-Encoding: gzip decodes to nothing', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end();
    });
    const res = await makeFetcher().fetch({ url: server.origin });
    expect(res.body.length).toBe(0);
  });

  it('reuses keep-alive sockets across 20 sequential requests', async () => {
    const server = await startServer(html('<p>keep me alive</p>'));
    const fetcher = makeFetcher();
    for (let i = 0; i < 20; i++) {
      const res = await fetcher.fetch({ url: `${server.origin}/p${i}` });
      expect(res.status).toBe(200);
    }
    expect(server.requests).toBe(20);
    // One: each fetch returns once undici has handed the connection back to its pool (a loop
    // turn after the response), so the next request, sent at once, finds it free.
    expect(server.connections).toBe(1);
  });

  it('fetches robots.txt (a 404) then a page on one connection', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/robots.txt') res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      else html('<p>first page</p>')(req, res);
    });
    const pages = makeFetcher();
    const robots = pages.variant({ acceptContentTypes: ['text/*'], truncateBody: true });
    expect((await robots.fetch({ url: `${server.origin}/robots.txt` })).status).toBe(404);
    expect((await pages.fetch({ url: `${server.origin}/` })).status).toBe(200);
    // Two per host before: the page's request, sent as robots.txt's response ended, found the
    // connection not yet back in the pool (breadth benchmark: 4,000 connects for 2,000 hosts).
    expect(server.connections).toBe(1);
  });

  it('sends the request target as the URL has it: an empty query keeps its ?, the fragment goes', async () => {
    const server = await startServer(html('<p>ok</p>'));
    const fetcher = makeFetcher();
    for (const path of ['/a?', '/?', '/a?#frag', '/a#frag', '/a?b', '/a?&', '/%7e?'])
      expect((await fetcher.fetch({ url: `${server.origin}${path}` })).status).toBe(200);
    expect((await fetcher.fetch({ url: `${server.origin}?` })).url).toBe(`${server.origin}/?`);
    // As a browser sends them (GET /a? for a link to /a?): `pathname + search` sent /a, /, /a.
    expect(server.paths).toEqual(['/a?', '/?', '/a?', '/a', '/a?b', '/a?&', '/%7e?', '/?']);
  });

  it('rejects unusable URLs with a FetchError', async () => {
    const fetcher = makeFetcher();
    expect(await rejectionOf(fetcher.fetch({ url: 'not a url' }))).toBeInstanceOf(FetchError);
    expect(await rejectionOf(fetcher.fetch({ url: 'ftp://127.0.0.1/' }))).toBeInstanceOf(FetchError);
  });
});

describe('UndiciFetcher: options', () => {
  it.each([
    [{ maxBodyBytes: 0 }, 'maxBodyBytes', '0'],
    [{ connectTimeoutMs: -5 }, 'connectTimeoutMs', '-5'],
    [{ totalTimeoutMs: 1.5 }, 'totalTimeoutMs', '1.5'],
    [{ maxRedirects: -1 }, 'maxRedirects', '-1'],
    [{ connectionsPerHost: Number.NaN }, 'connectionsPerHost', 'null'],
    [{ userAgent: '' }, 'userAgent', '""'],
    [{ userAgent: 'a\r\nx: y' }, 'userAgent', '"a\\r\\nx: y"'],
    [{ acceptContentTypes: [] }, 'acceptContentTypes', '[]'],
    [{ acceptContentTypes: ['HTML'] }, 'acceptContentTypes', '"HTML"'],
    [{ addressPolicy: { allowPrivateNetworks: false, allow: ['nope'] } }, 'addressPolicy.allow', '"nope"'],
  ])('%j is refused naming the option and value', (opts, name, shown) => {
    const build = () => new UndiciFetcher(opts as never);
    expect(build).toThrow(InvalidArgumentError);
    expect(build).toThrow(name);
    expect(build).toThrow(shown);
  });

  it('exposes the resolved options with defaults filled in', async () => {
    const fetcher = new UndiciFetcher({ maxRedirects: 3, bodyTimeoutMs: undefined });
    expect(fetcher.options.maxRedirects).toBe(3);
    expect(fetcher.options.bodyTimeoutMs).toBe(15_000);
    expect(fetcher.options.maxBodyBytes).toBe(10 * 1024 * 1024);
    expect(fetcher.options.maxDecodedBytes).toBe(20 * 1024 * 1024);
    expect(fetcher.options.addressPolicy.allowPrivateNetworks).toBe(false);
    await fetcher.close();
  });
});
