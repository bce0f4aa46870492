import type { LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AbortedError,
  BodyTimeoutError,
  ConnectionError,
  ConnectTimeoutError,
  FetchError,
  HeadersTimeoutError,
  TotalTimeoutError,
} from '../../src/core/errors.js';
import { closeAll, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';

afterEach(closeAll);

/** Answers the headers and the first body bytes, then goes silent. */
const stallsMidBody = (_req: unknown, res: import('node:http').ServerResponse) => {
  res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
  res.write('<p>first');
};

describe('UndiciFetcher: timeouts', () => {
  it('cuts a slow drip (1 byte per 200 ms) at totalTimeoutMs', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '100' });
      const drip = setInterval(() => (res.destroyed ? clearInterval(drip) : res.write('x')), 200);
    });
    // bodyTimeoutMs alone never fires: the gap between bytes is always shorter than it.
    const fetcher = makeFetcher({ bodyTimeoutMs: 1_000, totalTimeoutMs: 700 });
    const err = await rejectionOf(fetcher.fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(TotalTimeoutError);
    expect(err).toBeInstanceOf(FetchError);
  });

  it('raises HeadersTimeoutError when the status line never completes', async () => {
    const server = await startServer((req) => {
      req.socket.write('HTTP/1.1 200 OK\r\nContent-Ty');
    });
    const err = await rejectionOf(makeFetcher({ headersTimeoutMs: 300 }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(HeadersTimeoutError);
    expect(err.message).toContain(server.origin);
  });

  it('raises BodyTimeoutError when the body stalls', async () => {
    const server = await startServer(stallsMidBody);
    const err = await rejectionOf(makeFetcher({ bodyTimeoutMs: 300 }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(BodyTimeoutError);
  });

  it('raises ConnectTimeoutError when connecting takes too long', async () => {
    // A lookup that never answers stalls the connect without sending any packet anywhere.
    const hang: LookupFunction = () => {};
    const fetcher = makeFetcher({ connectTimeoutMs: 200, lookup: hang });
    const err = await rejectionOf(fetcher.fetch({ url: 'http://stalled.test/' }));
    expect(err).toBeInstanceOf(ConnectTimeoutError);
  });
});

describe('UndiciFetcher: broken connections', () => {
  it('maps a connection reset mid-body to ConnectionError', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '10000' });
      res.write('x'.repeat(100), () => setTimeout(() => req.socket.resetAndDestroy(), 20));
    });
    expect(await rejectionOf(makeFetcher().fetch({ url: server.origin }))).toBeInstanceOf(ConnectionError);
  });

  it('maps a lying Content-Length (declares 1000, sends 10, closes) to ConnectionError', async () => {
    const server = await startServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': '1000' });
      res.write('0123456789', () => req.socket.end());
    });
    expect(await rejectionOf(makeFetcher().fetch({ url: server.origin }))).toBeInstanceOf(ConnectionError);
  });

  it('maps a refused connection to ConnectionError', async () => {
    const server = await startServer(() => {});
    await server.close();
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(ConnectionError);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('maps a DNS failure to ConnectionError', async () => {
    const nxdomain: LookupFunction = (hostname, _opts, cb) => {
      const err: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      err.code = 'ENOTFOUND';
      cb(err, '');
    };
    const err = await rejectionOf(makeFetcher({ lookup: nxdomain }).fetch({ url: 'http://nowhere.test/' }));
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).retryable).toBe(true);
  });
});

describe('UndiciFetcher: caller abort', () => {
  it('rejects with AbortedError when the signal fires while waiting for headers', async () => {
    const server = await startServer(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin, signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortedError);
  });

  it('rejects with AbortedError when the signal fires mid-body', async () => {
    const server = await startServer(stallsMidBody);
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutdown')), 100);
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin, signal: controller.signal }));
    expect(err).toBeInstanceOf(AbortedError);
  });

  it('rejects at once with AbortedError for an already-aborted signal, sending nothing', async () => {
    const server = await startServer(() => {});
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin, signal: AbortSignal.abort() }));
    expect(err).toBeInstanceOf(AbortedError);
    expect(server.connections).toBe(0);
  });

  it('still serves later requests after an abort', async () => {
    let n = 0;
    const server = await startServer((_req, res) => {
      if (n++ === 0) return; // first request hangs
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('fine');
    });
    const fetcher = makeFetcher();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    await rejectionOf(fetcher.fetch({ url: server.origin, signal: controller.signal }));
    const res = await fetcher.fetch({ url: server.origin });
    expect(res.body.toString()).toBe('fine');
  });
});
