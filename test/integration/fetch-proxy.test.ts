/**
 * Egress through a real forward proxy on 127.0.0.1 (test/helpers/forward-proxy.ts): every
 * request goes through it, NO_PROXY hosts do not, credentials are sent as Proxy-Authorization,
 * the SSRF guard refuses a blocked target before the proxy is asked (redirects too), and a
 * failing proxy gives proxy_error / proxy_auth and leaves the rotation.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo, LookupFunction } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { proxySettingsFromEnv } from '../../src/adapters/fetch/proxy.js';
import { BlockedAddressError, ProxyError } from '../../src/core/errors.js';
import { tempDir } from '../helpers/cli.js';
import { closeAll, html, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';
import { type ForwardProxy, startForwardProxy } from '../helpers/forward-proxy.js';

const proxies: ForwardProxy[] = [];
afterEach(async () => {
  await closeAll();
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});

/** Test names: *.test resolve to 127.0.0.1, evil.test to 127.0.0.2 (refused by the policy). */
const NAMES: Record<string, string> = { 'evil.test': '127.0.0.2' };
const resolveName = (host: string) => NAMES[host] ?? (host.endsWith('.test') ? '127.0.0.1' : host);
const lookup: LookupFunction = (hostname, options, cb) => {
  const address = resolveName(hostname);
  if (options.all) cb(null, [{ address, family: 4 }]);
  else cb(null, address, 4);
};
/** Loopback refused except 127.0.0.1 (where the target and the proxy listen). */
const POLICY = { allowPrivateNetworks: false, allow: ['127.0.0.1'] };

async function proxy(o: Parameters<typeof startForwardProxy>[0] = {}): Promise<ForwardProxy> {
  const p = await startForwardProxy({ resolve: resolveName, ...o });
  proxies.push(p);
  return p;
}

const settings = (urls: string[], noProxy: string[] = []) => ({ http: urls, https: urls, noProxy });

describe('UndiciFetcher through an HTTP proxy', () => {
  it('sends every http request through the proxy in absolute form, with Proxy-Authorization from the URL', async () => {
    const target = await startServer(html('<h1>hi</h1>'));
    const p = await proxy({ requireAuth: `Basic ${Buffer.from('user:s3cret').toString('base64')}` });
    const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: settings([p.url('user:s3cret')]) });
    const res = await f.fetch({ url: `http://shop.test:${target.port}/a` });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('hi');
    await f.fetch({ url: `http://shop.test:${target.port}/b` });
    // The absolute form keeps an empty query's `?` (undici's proxy agent prefixes the origin).
    await f.fetch({ url: `http://shop.test:${target.port}/c?` });
    expect(p.log.map((e) => [e.kind, e.target, e.path])).toEqual([
      ['http', `shop.test:${target.port}`, '/a'],
      ['http', `shop.test:${target.port}`, '/b'],
      ['http', `shop.test:${target.port}`, '/c?'],
    ]);
    expect(target.paths).toEqual(['/a', '/b', '/c?']);
    expect(p.log.every((e) => e.auth === `Basic ${Buffer.from('user:s3cret').toString('base64')}`)).toBe(
      true,
    );
    expect(target.requests).toBe(3);
  });

  it('answers 407 without credentials as proxy_auth, never naming the proxy URL', async () => {
    const target = await startServer(html('x'));
    const p = await proxy({ requireAuth: 'Basic nope' });
    const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: settings([p.url('user:wrong')]) });
    const err = await rejectionOf(f.fetch({ url: `http://shop.test:${target.port}/` }));
    expect(err).toBeInstanceOf(ProxyError);
    expect((err as ProxyError).reason).toBe('proxy_auth');
    expect(err.message).not.toContain('wrong');
    expect(target.requests).toBe(0);
  });

  it('opens a CONNECT tunnel for an https target', async () => {
    const dir = tempDir();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=shop.test',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    let handshakes = 0;
    const tls = https.createServer(
      { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) },
      (_q, r) => r.end('tls'),
    );
    // A TCP connection through the tunnel (the client drops it on seeing the certificate).
    tls.on('connection', () => handshakes++);
    await new Promise<void>((r) => tls.listen(0, '127.0.0.1', r));
    const port = (tls.address() as AddressInfo).port;
    try {
      const p = await proxy();
      const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: settings([p.url()]) });
      // The self-signed certificate is refused, but only after the tunnel reached the server.
      const err = await rejectionOf(f.fetch({ url: `https://shop.test:${port}/` }));
      expect(err).not.toBeInstanceOf(ProxyError);
      expect(p.log).toEqual([{ kind: 'connect', target: `shop.test:${port}`, auth: undefined }]);
      expect(handshakes).toBeGreaterThan(0);
    } finally {
      tls.closeAllConnections();
      await new Promise<void>((r) => tls.close(() => r()));
    }
  });

  it('goes direct for NO_PROXY hosts (from the environment)', async () => {
    const target = await startServer(html('x'));
    const p = await proxy();
    const env = { http_proxy: p.url(), NO_PROXY: 'direct.test, .internal.test' };
    const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: proxySettingsFromEnv(env) });
    await f.fetch({ url: `http://direct.test:${target.port}/1` });
    await f.fetch({ url: `http://a.internal.test:${target.port}/2` });
    await f.fetch({ url: `http://via.test:${target.port}/3` });
    expect(p.log.map((e) => e.path)).toEqual(['/3']);
    expect(target.paths).toEqual(['/1', '/2', '/3']);
  });

  it('refuses a blocked target before asking the proxy, on a redirect too', async () => {
    const target = await startServer((req, res) => {
      if (req.url === '/jump') res.writeHead(302, { location: `http://evil.test:${port}/secret` }).end();
      else html('ok')(req, res);
    });
    const port = target.port;
    const p = await proxy();
    const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: settings([p.url()]) });
    // A name resolving to a refused address, and a refused literal: the proxy never hears of them.
    expect(await rejectionOf(f.fetch({ url: `http://evil.test:${port}/secret` }))).toBeInstanceOf(
      BlockedAddressError,
    );
    expect(await rejectionOf(f.fetch({ url: `http://127.0.0.2:${port}/secret` }))).toBeInstanceOf(
      BlockedAddressError,
    );
    expect(p.log).toEqual([]);
    // Allowed first hop through the proxy, then a redirect to the refused one: refused.
    expect(await rejectionOf(f.fetch({ url: `http://shop.test:${port}/jump` }))).toBeInstanceOf(
      BlockedAddressError,
    );
    expect(p.log.map((e) => e.path)).toEqual(['/jump']);
    // And the allowed target does pass.
    expect((await f.fetch({ url: `http://shop.test:${port}/fine` })).status).toBe(200);
  });

  it('takes a dead proxy out of rotation (proxy_error) and keeps going through the live one', async () => {
    const target = await startServer(html('x'));
    const dead = await proxy();
    const deadUrl = dead.url();
    await dead.close();
    const live = await proxy();
    const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: settings([deadUrl, live.url()]) });
    const results: string[] = [];
    for (let i = 0; i < 6; i++) {
      try {
        await f.fetch({ url: `http://shop.test:${target.port}/${i}` });
        results.push('ok');
      } catch (err) {
        results.push((err as ProxyError).reason);
      }
    }
    // The dead one fails once, then rotation skips it while its breaker is open.
    expect(results).toEqual(['proxy_error', 'ok', 'ok', 'ok', 'ok', 'ok']);
    expect(live.log).toHaveLength(5);
  });

  it('gives proxy_error for a CONNECT answered 403, and a job can go direct (proxy: false)', async () => {
    const p = await proxy({ connectStatus: 403 });
    const f = makeFetcher({ addressPolicy: POLICY, lookup, proxy: settings([p.url()]) });
    const err = await rejectionOf(f.fetch({ url: 'https://shop.test:1/' }));
    expect(err).toBeInstanceOf(ProxyError);
    expect((err as ProxyError).reason).toBe('proxy_error');
    const target = await startServer(html('x'));
    expect((await f.fetch({ url: `http://shop.test:${target.port}/`, proxy: false })).status).toBe(200);
    expect(p.log).toHaveLength(1);
  });
});
