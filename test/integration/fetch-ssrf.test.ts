import type { LookupFunction } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { BlockedAddressError } from '../../src/core/errors.js';
import { closeAll, html, makeFetcher, rejectionOf, startServer } from '../helpers/fetch.js';

afterEach(closeAll);

const STRICT = { allowPrivateNetworks: false, allow: [] as string[] };

/** Resolves every name to fixed loopback answers: no real DNS, no traffic off the machine. */
function fixedLookup(addresses: string[]): LookupFunction {
  return (_hostname, options, cb) => {
    const all = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) cb(null, all);
    else cb(null, all[0]!.address, all[0]!.family);
  };
}

describe('UndiciFetcher: SSRF guard', () => {
  it('refuses a literal 127.0.0.1 URL before connecting', async () => {
    const server = await startServer(html('secret'));
    const err = await rejectionOf(makeFetcher({ addressPolicy: STRICT }).fetch({ url: server.origin }));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err.message).toContain('loopback');
    expect(server.connections).toBe(0);
    expect(server.requests).toBe(0);
  });

  it.each([
    'http://2130706433:PORT/',
    'http://0x7f.0.0.1:PORT/',
    'http://0177.0.0.1:PORT/',
    'http://127.1:PORT/',
  ])('refuses the obfuscated literal %s', async (template) => {
    const server = await startServer(html('secret'));
    const url = template.replace('PORT', String(server.port));
    const err = await rejectionOf(makeFetcher({ addressPolicy: STRICT }).fetch({ url }));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(server.connections).toBe(0);
  });

  it('refuses http://localhost:PORT/ after DNS resolution', async () => {
    const server = await startServer(html('secret'));
    const fetcher = makeFetcher({ addressPolicy: STRICT });
    const err = await rejectionOf(fetcher.fetch({ url: `http://localhost:${server.port}/` }));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err.message).toContain('localhost');
    expect(server.connections).toBe(0);
    expect(server.requests).toBe(0);
  });

  it('refuses a name whose DNS answer is an IPv4-mapped loopback', async () => {
    const server = await startServer(html('secret'));
    const fetcher = makeFetcher({ addressPolicy: STRICT, lookup: fixedLookup(['::ffff:127.0.0.1']) });
    const err = await rejectionOf(fetcher.fetch({ url: `http://rebind.test:${server.port}/` }));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(err.message).toContain('ipv4-mapped/loopback');
    expect(server.connections).toBe(0);
  });

  it('connects only to the allowed answer when DNS returns a mix', async () => {
    const server = await startServer(html('public'));
    const fetcher = makeFetcher({
      addressPolicy: { allowPrivateNetworks: false, allow: [`127.0.0.1:${server.port}`] },
      lookup: fixedLookup(['127.0.0.2', '127.0.0.1']),
    });
    const res = await fetcher.fetch({ url: `http://mixed.test:${server.port}/` });
    expect(res.body.toString()).toBe('public');
  });

  it('refuses a redirect from an allowed server to another loopback port', async () => {
    const target = await startServer(html('internal'));
    const entry = await startServer((_req, res) => {
      res.writeHead(302, { location: `http://127.0.0.1:${target.port}/admin` });
      res.end();
    });
    const fetcher = makeFetcher({
      addressPolicy: { allowPrivateNetworks: false, allow: [`127.0.0.1:${entry.port}`] },
    });
    const err = await rejectionOf(fetcher.fetch({ url: `${entry.origin}/` }));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(entry.requests).toBe(1);
    expect(target.connections).toBe(0);
    expect(target.requests).toBe(0);
  });

  it('refuses a redirect to a name that resolves to a blocked address', async () => {
    const target = await startServer(html('internal'));
    const entry = await startServer((_req, res) => {
      res.writeHead(301, { location: `http://internal.test:${target.port}/` });
      res.end();
    });
    const fetcher = makeFetcher({
      addressPolicy: { allowPrivateNetworks: false, allow: [`127.0.0.1:${entry.port}`] },
      lookup: fixedLookup(['127.0.0.1']),
    });
    const err = await rejectionOf(fetcher.fetch({ url: `${entry.origin}/` }));
    expect(err).toBeInstanceOf(BlockedAddressError);
    expect(target.connections).toBe(0);
  });

  it('allows loopback when allowPrivateNetworks is true', async () => {
    const server = await startServer(html('dev'));
    const res = await makeFetcher().fetch({ url: `http://localhost:${server.port}/` });
    expect(res.body.toString()).toBe('dev');
  });
});
