import zlib from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { BodyTooLargeError, DecodedTooLargeError, DecodeError } from '../../src/core/errors.js';
import { closeAll, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';
import { waitFor } from '../helpers/wait.js';

afterEach(closeAll);

const KiB = 1024;
const MiB = 1024 * KiB;

/** Streams `chunk` until the client goes away, reporting how many bytes were written. */
function endless(chunk: Buffer, headers: Record<string, string>, sent: { bytes: number; stopped: boolean }) {
  return (_req: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(200, headers);
    const pump = () => {
      while (!res.destroyed) {
        sent.bytes += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
    };
    res.on('close', () => {
      sent.stopped = true;
    });
    pump();
  };
}

describe('UndiciFetcher: size caps', () => {
  it('cuts an endless body at maxBodyBytes while streaming', async () => {
    const sent = { bytes: 0, stopped: false };
    const server = await startServer(
      endless(Buffer.alloc(16 * KiB, 'a'), { 'content-type': 'text/html' }, sent),
    );
    const err = await rejectionOf(makeFetcher({ maxBodyBytes: 256 * KiB }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(BodyTooLargeError);
    await waitFor(() => sent.stopped, 'the server to see the client go away');
    // Socket buffers let the server get somewhat ahead, but nowhere near unbounded.
    expect(sent.bytes).toBeLessThan(8 * MiB);
  });

  it('rejects early when Content-Length exceeds maxBodyBytes', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(50 * MiB) });
      res.write(Buffer.alloc(KiB));
      // Never sends the rest: only an early Content-Length check ends this fetch at all.
    });
    const err = await rejectionOf(makeFetcher({ maxBodyBytes: MiB }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(BodyTooLargeError);
    expect(err.message).toContain('Content-Length');
  });

  it('cuts a gzip bomb (200 MiB of zeros, ~200 KiB on the wire) at maxDecodedBytes', async () => {
    // Concatenated gzip members decode as one stream: 200 x 1 MiB of zeros.
    const member = zlib.gzipSync(Buffer.alloc(MiB), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 200 }, () => member));
    expect(bomb.length).toBeLessThan(300 * KiB);
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(bomb);
    });
    const before = process.memoryUsage().arrayBuffers;
    const err = await rejectionOf(makeFetcher({ maxDecodedBytes: 2 * MiB }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(DecodedTooLargeError);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * MiB);
  });

  it('cuts a brotli bomb at maxDecodedBytes', async () => {
    const bomb = zlib.brotliCompressSync(Buffer.alloc(32 * MiB), {
      params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 },
    });
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' });
      res.end(bomb);
    });
    const err = await rejectionOf(makeFetcher({ maxDecodedBytes: MiB }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(DecodedTooLargeError);
  });

  it('accepts a compressed body exactly at the decoded cap', async () => {
    const body = Buffer.alloc(100 * KiB, 'x');
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip' });
      res.end(zlib.gzipSync(body));
    });
    const res = await makeFetcher({ maxDecodedBytes: body.length }).fetch({ url: server.origin });
    expect(res.body.equals(body)).toBe(true);
  });
});

describe('UndiciFetcher: decoding errors', () => {
  it('rejects corrupt gzip with DecodeError', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(Buffer.from('this is definitely not gzip data'));
    });
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(DecodeError);
    expect(err.message).toContain('gzip');
  });

  it('rejects truncated gzip with DecodeError', async () => {
    const gz = zlib.gzipSync(Buffer.from('<p>'.repeat(1000)));
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(gz.subarray(0, gz.length - 12));
    });
    expect(await rejectionOf(makeFetcher().fetch({ url: server.origin }))).toBeInstanceOf(DecodeError);
  });

  it('rejects corrupt brotli with DecodeError', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'br' });
      res.end(Buffer.from('garbage garbage garbage'));
    });
    expect(await rejectionOf(makeFetcher().fetch({ url: server.origin }))).toBeInstanceOf(DecodeError);
  });

  it('rejects a Content-Encoding it never offered with DecodeError', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'compress' });
      res.end('x');
    });
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(DecodeError);
    expect(err.message).toContain('compress');
  });
});
