import { describe, expect, it } from 'vitest';
import { seedScopeHosts, siteOf, wwwTwin } from '../../src/core/seed-scope.js';
import { discoveredUrl, hostInScope, inScope, normaliseInScope } from '../../src/core/url.js';

const scope = (hosts: string[], redirectHosts?: Set<string>) => ({
  hosts,
  include: [],
  exclude: [],
  maxDepth: 5,
  ...(redirectHosts ? { redirectHosts } : {}),
});

describe('seed scope', () => {
  it('pairs a host with its www twin, never an IP or a single label', () => {
    expect(wwwTwin('shop.test')).toBe('www.shop.test');
    expect(wwwTwin('www.shop.test')).toBe('shop.test');
    expect(wwwTwin('www.test')).toBeUndefined(); // 'test' alone is a TLD
    expect(wwwTwin('127.0.0.1')).toBeUndefined();
    expect(wwwTwin('[::1]')).toBeUndefined();
    expect(wwwTwin('localhost')).toBeUndefined();
  });

  it('default hosts: each seed host and its twin, ports kept', () => {
    expect(seedScopeHosts(['shop.test', 'www.b.test:8080', '127.0.0.1:9'], false)).toEqual([
      'shop.test',
      'www.shop.test',
      'www.b.test:8080',
      'b.test:8080',
      '127.0.0.1:9',
    ]);
  });

  it('sameSite: the registrable domain from the Public Suffix List, private section included', () => {
    expect(siteOf('img.shop.co.uk')).toBe('shop.co.uk');
    expect(siteOf('a.b.foo.github.io')).toBe('foo.github.io');
    expect(siteOf('localhost')).toBe('localhost');
    expect(seedScopeHosts(['www.shop.co.uk', 'x.foo.github.io:81', '10.0.0.1'], true)).toEqual([
      '*.shop.co.uk',
      '*.foo.github.io:81',
      '10.0.0.1',
    ]);
    const s = scope(seedScopeHosts(['www.shop.co.uk'], true));
    expect(inScope('https://img.shop.co.uk/a', 0, s).ok).toBe(true);
    expect(inScope('https://shop.co.uk/a', 0, s).ok).toBe(true);
    expect(inScope('https://other.co.uk/a', 0, s).ok).toBe(false);
    const gh = scope(seedScopeHosts(['foo.github.io'], true));
    expect(inScope('https://bar.github.io/', 0, gh).ok).toBe(false);
  });

  it('hosts a seed redirected to are in scope, by exact host', () => {
    const redirects = new Set(['cdn.test:8443']);
    const s = scope(['shop.test'], redirects);
    expect(hostInScope(new URL('https://cdn.test:8443/x'), s)).toBe(true);
    expect(hostInScope(new URL('https://cdn.test/x'), s)).toBe(false);
    expect(normaliseInScope('https://cdn.test:8443/p?b=1&a=2', 1, s)).toEqual({
      ok: true,
      url: 'https://cdn.test:8443/p?a=2&b=1',
      requestUrl: 'https://cdn.test:8443/p?b=1&a=2',
    });
  });
});

describe('discovered URL', () => {
  it('keeps the URL as written (resolved, no fragment) beside its dedupe key', () => {
    expect(discoveredUrl('/y?sig=abc&expires=1&utm_source=x#top', 'http://Shop.test/a/')).toEqual({
      url: 'http://shop.test/y?expires=1&sig=abc',
      requestUrl: 'http://shop.test/y?sig=abc&expires=1&utm_source=x',
    });
    expect(discoveredUrl('http://shop.test/a/../b')).toEqual({ url: 'http://shop.test/b' });
    expect(discoveredUrl('http://shop.test/%7e?q=%2f')).toEqual({
      url: 'http://shop.test/~?q=%2F',
      requestUrl: 'http://shop.test/%7e?q=%2f',
    });
    expect(() => discoveredUrl('ftp://x/')).toThrow();
  });
});
