/**
 * The fetcher with a cookie jar and refreshes, against real servers: a cookie wall that sets
 * its cookie in a redirect, a session cookie on a path, meta refresh and the Refresh header,
 * and a cookie that must not cross to another host.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { JobCookieJar } from '../../src/adapters/cookies/job-jar.js';
import { VolatileMapStore } from '../../src/adapters/shared-map/volatile-map-store.js';
import {
  BlockedAddressError,
  RedirectLoopError,
  RedirectOutOfScopeError,
  TooManyRedirectsError,
} from '../../src/core/errors.js';
import { closeAll, html, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';

afterEach(closeAll);

const newJar = () =>
  new JobCookieJar({
    jobId: 't',
    store: new VolatileMapStore(),
    limits: { maxPerDomain: 50, maxTotal: 3000 },
  });

describe('UndiciFetcher with a cookie jar', () => {
  it('passes a cookie wall: /item -> /gate sets a cookie -> /item with it is no loop', async () => {
    const seen: string[] = [];
    const server = await startServer((req, res) => {
      seen.push(`${req.url} [${req.headers.cookie ?? ''}]`);
      if (req.url === '/item' && !/consent=yes/.test(req.headers.cookie ?? '')) {
        res.writeHead(302, { location: '/gate?next=/item' });
        return res.end();
      }
      if (req.url?.startsWith('/gate')) {
        res.writeHead(302, { location: '/item', 'set-cookie': 'consent=yes; Path=/; HttpOnly' });
        return res.end();
      }
      html('<title>the item</title>')(req, res);
    });
    const res = await makeFetcher().fetch({ url: `${server.origin}/item`, cookieJar: newJar() });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('the item');
    expect(res.url).toBe(`${server.origin}/item`);
    expect(res.redirects).toEqual([`${server.origin}/item`, `${server.origin}/gate?next=/item`]);
    expect(seen).toEqual(['/item []', '/gate?next=/item []', '/item [consent=yes]']);
    // Without a jar the wall is a loop, as before.
    expect(await rejectionOf(makeFetcher().fetch({ url: `${server.origin}/item` }))).toBeInstanceOf(
      RedirectLoopError,
    );
  });

  it('a loop is the same URL with the same cookies', async () => {
    let n = 0;
    const server = await startServer((_req, res) => {
      // A new cookie value on every visit, then the same one: the loop is caught at the repeat.
      n++;
      res.writeHead(302, { location: '/same', 'set-cookie': `v=${Math.min(n, 3)}` });
      res.end();
    });
    const err = await rejectionOf(makeFetcher().fetch({ url: `${server.origin}/same`, cookieJar: newJar() }));
    expect(err).toBeInstanceOf(RedirectLoopError);
    expect(n).toBe(4);
  });

  it('sends a Path cookie to that path only, and never to another host', async () => {
    const other = await startServer((req, res) => html(`<p>${req.headers.cookie ?? 'none'}</p>`)(req, res));
    const server = await startServer((req, res) => {
      if (req.url === '/session/start') {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=S3CRET; Path=/session' });
        return res.end('<p>started</p>');
      }
      html(`<p>${req.headers.cookie ?? 'none'}</p>`)(req, res);
    });
    const jar = newJar();
    const f = makeFetcher();
    await f.fetch({ url: `${server.origin}/session/start`, cookieJar: jar });
    expect((await f.fetch({ url: `${server.origin}/session/b`, cookieJar: jar })).body.toString()).toBe(
      '<p>sid=S3CRET</p>',
    );
    expect((await f.fetch({ url: `${server.origin}/other`, cookieJar: jar })).body.toString()).toBe(
      '<p>none</p>',
    );
    // 127.0.0.1 on another port is the same host for cookies (RFC 6265 §8.5): a different host
    // name is not, so the other server is asked as localhost.
    const elsewhere = other.origin.replace('127.0.0.1', 'localhost');
    expect((await f.fetch({ url: `${elsewhere}/session/b`, cookieJar: jar })).body.toString()).toBe(
      '<p>none</p>',
    );
  });
});

describe('UndiciFetcher: meta refresh and the Refresh header', () => {
  it('follows <meta http-equiv=refresh> of a 2xx page as a hop, with the cookies it set', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/old')
        return html(
          '<html><head><noscript><meta http-equiv="refresh" content="0; url=/noscript"></noscript>' +
            '<META HTTP-EQUIV="Refresh" CONTENT="0; URL=\'/new?x=1\'"></head><body>moved</body></html>',
          { 'set-cookie': 'seen=1' },
        )(req, res);
      html(`<title>new</title><p>${req.headers.cookie ?? ''}</p>`)(req, res);
    });
    const res = await makeFetcher().fetch({ url: `${server.origin}/old`, cookieJar: newJar() });
    expect(res.url).toBe(`${server.origin}/new?x=1`);
    expect(res.redirects).toEqual([`${server.origin}/old`]);
    expect(res.body.toString()).toContain('<p>seen=1</p>');
    expect(server.paths).toEqual(['/old', '/new?x=1']);
  });

  it('follows a Refresh header; leaves a longer delay, a refresh without URL or to itself alone', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/h') return html('<p>h</p>', { refresh: '2;url=/dest' })(req, res);
      if (req.url === '/slow') return html('<meta http-equiv="refresh" content="300; url=/dest">')(req, res);
      if (req.url === '/self') return html('<meta http-equiv="refresh" content="0">')(req, res);
      if (req.url === '/again') return html('<meta http-equiv="refresh" content="30;url=/again">')(req, res);
      html('<p>dest</p>')(req, res);
    });
    const f = makeFetcher();
    expect((await f.fetch({ url: `${server.origin}/h` })).url).toBe(`${server.origin}/dest`);
    for (const p of ['/slow', '/self', '/again']) {
      const res = await f.fetch({ url: `${server.origin}${p}` });
      expect(res.url).toBe(`${server.origin}${p}`);
      expect(res.redirects).toEqual([]);
    }
    expect(server.paths.filter((p) => p === '/again')).toHaveLength(1);
    // maxRefreshDelaySeconds 0: only an immediate refresh.
    expect((await makeFetcher({ maxRefreshDelaySeconds: 0 }).fetch({ url: `${server.origin}/h` })).url).toBe(
      `${server.origin}/h`,
    );
  });

  it('counts refreshes in the hop budget and asks the scope, like a 3xx; past the budget the page is the answer', async () => {
    const server = await startServer((req, res) => {
      const n = Number(req.url?.slice(1));
      html(`<meta http-equiv="refresh" content="0;url=/${n + 1}">`)(req, res);
    });
    const res = await makeFetcher({ maxRedirects: 3 }).fetch({ url: `${server.origin}/0` });
    expect(res.url).toBe(`${server.origin}/3`);
    expect(res.redirects).toHaveLength(3);
    expect(server.requests).toBe(4);
    // A 3xx after a refresh still fails past the budget: it has no page to give.
    const mixed = await startServer((req, res) => {
      if (req.url === '/0') return html('<meta http-equiv="refresh" content="0;url=/1">')(req, res);
      res.writeHead(302, { location: `/${Number(req.url?.slice(1)) + 1}` });
      res.end();
    });
    expect(
      await rejectionOf(makeFetcher({ maxRedirects: 3 }).fetch({ url: `${mixed.origin}/0` })),
    ).toBeInstanceOf(TooManyRedirectsError);
    const out = await startServer(html('<meta http-equiv="refresh" content="0;url=http://localhost:1/x">'));
    const err = await rejectionOf(
      makeFetcher().fetch({ url: `${out.origin}/`, followRedirect: (u) => u.hostname === '127.0.0.1' }),
    );
    expect(err).toBeInstanceOf(RedirectOutOfScopeError);
  });

  it('a refresh passes the SSRF guard like a redirect: to a refused address it is blocked', async () => {
    const inner = await startServer(html('<p>internal</p>'));
    const server = await startServer(
      html(`<meta http-equiv="refresh" content="0;url=http://127.0.0.1:${inner.port}/admin">`),
    );
    const guarded = makeFetcher({
      addressPolicy: { allowPrivateNetworks: false, allow: [`127.0.0.1:${server.port}`] },
    });
    expect(await rejectionOf(guarded.fetch({ url: `${server.origin}/` }))).toBeInstanceOf(
      BlockedAddressError,
    );
    expect(inner.requests).toBe(0);
  });

  it('does not refresh a 404, a HEAD or a non-HTML body', async () => {
    const server = await startServer((req, res) => {
      if (req.url === '/gone') {
        res.writeHead(404, { 'content-type': 'text/html' });
        return res.end('<meta http-equiv="refresh" content="0;url=/">');
      }
      if (req.url === '/json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"a":"<meta http-equiv=\\"refresh\\" content=\\"0;url=/\\">"}');
      }
      html('<meta http-equiv="refresh" content="0;url=/elsewhere">')(req, res);
    });
    const f = makeFetcher();
    expect((await f.fetch({ url: `${server.origin}/gone` })).status).toBe(404);
    expect((await f.fetch({ url: `${server.origin}/json` })).url).toBe(`${server.origin}/json`);
    expect((await f.fetch({ url: `${server.origin}/page`, method: 'HEAD' })).url).toBe(
      `${server.origin}/page`,
    );
  });
});
