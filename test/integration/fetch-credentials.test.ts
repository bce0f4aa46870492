import type http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { closeAll, makeFetcher, startServer } from '../helpers/fetch.js';

/** A job's secret headers go to the origin they were configured for, and nowhere else. */

interface Seen {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function recording(seen: Seen[], respond: (req: http.IncomingMessage, res: http.ServerResponse) => void) {
  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => {
      body += c.toString();
    });
    req.on('end', () => {
      seen.push({ path: req.url ?? '', method: req.method ?? '', headers: req.headers, body });
      respond(req, res);
    });
  };
}

const secrets = { Authorization: 'Bearer t0ken', Cookie: 'session=abc', 'X-Trace': 'keep' };

afterEach(closeAll);

describe('request headers across redirects', () => {
  it('drops Authorization and Cookie on a redirect to another origin, keeps other headers', async () => {
    const other: Seen[] = [];
    const target = await startServer(
      recording(other, (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}')),
    );
    const first: Seen[] = [];
    const origin = await startServer(
      recording(first, (_req, res) => res.writeHead(302, { location: `${target.origin}/landing` }).end()),
    );
    const fetcher = makeFetcher();
    const res = await fetcher.fetch({ url: `${origin.origin}/start`, headers: secrets });
    expect(res.status).toBe(200);
    expect(first[0]!.headers.authorization).toBe('Bearer t0ken');
    expect(first[0]!.headers.cookie).toBe('session=abc');
    expect(other).toHaveLength(1);
    expect(other[0]!.headers.authorization).toBeUndefined();
    expect(other[0]!.headers.cookie).toBeUndefined();
    expect(other[0]!.headers['x-trace']).toBe('keep');
  });

  it('keeps them on a same-origin redirect', async () => {
    const seen: Seen[] = [];
    const server = await startServer(
      recording(seen, (req, res) => {
        if (req.url === '/start') res.writeHead(301, { location: '/next' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }),
    );
    await makeFetcher().fetch({ url: `${server.origin}/start`, headers: secrets });
    expect(seen.map((s) => s.headers.authorization)).toEqual(['Bearer t0ken', 'Bearer t0ken']);
  });

  it('sends the method and body of a POST API job, and a 307 keeps them', async () => {
    const seen: Seen[] = [];
    const server = await startServer(
      recording(seen, (req, res) => {
        if (req.url === '/search') res.writeHead(307, { location: '/v2/search' }).end();
        else res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      }),
    );
    const res = await makeFetcher().fetch({
      url: `${server.origin}/search`,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"q":"shoes"}',
    });
    expect(res.body.toString()).toBe('{"ok":true}');
    expect(seen.map((s) => [s.method, s.path, s.body])).toEqual([
      ['POST', '/search', '{"q":"shoes"}'],
      ['POST', '/v2/search', '{"q":"shoes"}'],
    ]);
  });
});
