import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { type HttpServerHandle, listen } from '../../src/observe/http-server.js';

describe('listen', () => {
  let server: HttpServerHandle | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('binds before it has a handler, answers 503 "starting" until serve()', async () => {
    server = await listen(undefined, '127.0.0.1', 0);
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    const early = await request(`${server.url}/healthz`);
    expect(early.statusCode).toBe(503);
    expect(early.headers['retry-after']).toBe('1');
    expect(await early.body.json()).toEqual({ starting: true });
    server.serve((_req, res) => res.end('ok'));
    const later = await request(`${server.url}/healthz`);
    expect(later.statusCode).toBe(200);
    expect(await later.body.text()).toBe('ok');
  });

  it('rejects when the port is taken', async () => {
    server = await listen(undefined, '127.0.0.1', 0);
    await expect(listen(undefined, '127.0.0.1', server.port)).rejects.toThrow(/EADDRINUSE/);
  });
});
