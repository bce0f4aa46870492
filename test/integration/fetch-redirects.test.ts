import { afterEach, describe, expect, it } from 'vitest';
import { FetchError, RedirectLoopError, TooManyRedirectsError } from '../../src/core/errors.js';
import { closeAll, html, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';

afterEach(closeAll);

function redirect(res: import('node:http').ServerResponse, status: number, location: string): void {
  res.writeHead(status, { location, 'content-type': 'text/html' });
  res.end('<a>moved</a>');
}

describe('UndiciFetcher: redirects', () => {
  it('follows a relative redirect and reports the chain', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/a/start') return redirect(res, 301, '../b/next?x=1');
      if (req.url === '/b/next?x=1') return redirect(res, 302, '/final');
      html('<p>final</p>')(req, res);
    });
    const res = await makeFetcher().fetch({ url: `${server.origin}/a/start` });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${server.origin}/final`);
    expect(res.redirects).toEqual([`${server.origin}/a/start`, `${server.origin}/b/next?x=1`]);
    expect(res.body.toString()).toBe('<p>final</p>');
    expect(server.paths).toEqual(['/a/start', '/b/next?x=1', '/final']);
  });

  it('sends a redirect or refresh target with an empty query as /path?, which a server may insist on', async () => {
    // A server that wants the bare `?` (its canonical form) redirects /canon to /canon? and
    // answers 200 only there: a fetcher that dropped the `?` asked for /canon again and ended in
    // redirect_loop. A meta refresh to /m? is a hop with the same request target.
    const server = await startServer((req, res) => {
      if (req.url === '/canon') return redirect(res, 301, '/canon?');
      if (req.url === '/canon?')
        return html('<meta http-equiv="refresh" content="0; url=/m?#top">')(req, res);
      if (req.url === '/m?') return html('<p>m</p>')(req, res);
      res.writeHead(404).end();
    });
    const res = await makeFetcher().fetch({ url: `${server.origin}/canon` });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`${server.origin}/m?`);
    expect(res.redirects).toEqual([`${server.origin}/canon`, `${server.origin}/canon?`]);
    expect(server.paths).toEqual(['/canon', '/canon?', '/m?']);
  });

  it('detects a redirect loop with RedirectLoopError', async () => {
    const server = await startServer((req, res) => redirect(res, 302, req.url === '/a' ? '/b' : '/a'));
    const err = await rejectionOf(makeFetcher().fetch({ url: `${server.origin}/a` }));
    expect(err).toBeInstanceOf(RedirectLoopError);
    expect(server.requests).toBe(2);
  });

  it('detects a self-redirect as a loop', async () => {
    const server = await startServer((req, res) => redirect(res, 307, req.url ?? '/'));
    expect(await rejectionOf(makeFetcher().fetch({ url: `${server.origin}/same` }))).toBeInstanceOf(
      RedirectLoopError,
    );
  });

  it('stops after maxRedirects with TooManyRedirectsError', async () => {
    const server = await startServer((req, res) => {
      const n = Number(req.url?.slice(1));
      redirect(res, 302, `/${n + 1}`);
    });
    const err = await rejectionOf(makeFetcher({ maxRedirects: 3 }).fetch({ url: `${server.origin}/0` }));
    expect(err).toBeInstanceOf(TooManyRedirectsError);
    // The original request plus three followed hops; the fourth redirect is refused.
    expect(server.requests).toBe(4);
  });

  it('maxRedirects 0 refuses the first redirect', async () => {
    const server = await startServer((_req, res) => redirect(res, 301, '/elsewhere'));
    const err = await rejectionOf(makeFetcher({ maxRedirects: 0 }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(TooManyRedirectsError);
  });

  it('turns POST into GET on 303 and keeps the method on 307', async () => {
    const seen: string[] = [];
    const server = await startServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      if (req.url === '/post') return redirect(res, 303, '/after');
      if (req.url === '/keep') return redirect(res, 307, '/after');
      req.resume();
      html('done')(req, res);
    });
    const fetcher = makeFetcher();
    await fetcher.fetch({ url: `${server.origin}/post`, method: 'POST', body: 'a=1' });
    await fetcher.fetch({ url: `${server.origin}/keep`, method: 'POST', body: 'a=1' });
    expect(seen).toEqual(['POST /post', 'GET /after', 'POST /keep', 'POST /after']);
  });

  it('returns a 3xx without Location as a response', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(304);
      res.end();
    });
    const res = await makeFetcher().fetch({ url: server.origin });
    expect(res.status).toBe(304);
    expect(res.body.length).toBe(0);
  });

  it('refuses a redirect to a non-http scheme', async () => {
    const server = await startServer((_req, res) => redirect(res, 302, 'file:///etc/passwd'));
    const err = await rejectionOf(makeFetcher().fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(FetchError);
    expect(err.message).toContain('file:');
  });
});
