import { describe, expect, it } from 'vitest';
import { InvalidUrlError } from '../../src/core/errors.js';
import type { ScopeRules } from '../../src/core/rules.js';
import {
  discoveredUrl,
  hostKey,
  inScope,
  matchesHostPattern,
  normaliseInScope,
  normaliseUrl,
  tryNormaliseUrl,
} from '../../src/core/url.js';

describe('normaliseUrl', () => {
  it.each([
    ['HTTP://Example.COM/Path', 'http://example.com/Path'],
    ['http://example.com:80/a', 'http://example.com/a'],
    ['https://example.com:443/a', 'https://example.com/a'],
    ['https://example.com:8443/a', 'https://example.com:8443/a'],
    ['http://example.com', 'http://example.com/'],
    ['http://example.com/a#frag', 'http://example.com/a'],
    ['http://example.com/a/./b/../c', 'http://example.com/a/c'],
    ['http://example.com/a/%2e%2E/c', 'http://example.com/c'],
    ['http://example.com/a?', 'http://example.com/a'],
    ['http://example.com/a?#x', 'http://example.com/a'],
    ['http://example.com/a?b=2&a=1', 'http://example.com/a?a=1&b=2'],
    ['http://example.com/a?a=2&a=1', 'http://example.com/a?a=2&a=1'],
    ['http://example.com/a?x=1&&y=2&', 'http://example.com/a?x=1&y=2'],
    ['http://example.com/%7euser/%c3%a9', 'http://example.com/~user/%C3%A9'],
    ['http://example.com/a%2fb', 'http://example.com/a%2Fb'],
    ['http://example.com/é', 'http://example.com/%C3%A9'],
    ['http://example.com/a?q=%7e%2f', 'http://example.com/a?q=~%2F'],
    ['http://user:pw@example.com/', 'http://user:pw@example.com/'],
    ['http://bücher.example/', 'http://xn--bcher-kva.example/'],
  ])('%s -> %s', (input, expected) => {
    expect(normaliseUrl(input)).toBe(expected);
    expect(normaliseUrl(expected)).toBe(expected);
  });

  it('strips tracking parameters by default and keeps the rest', () => {
    expect(
      normaliseUrl('http://e.com/?utm_source=x&id=3&UTM_Medium=y&gclid=1&fbclid=2&_ga=3&igshid=4&msclkid=5'),
    ).toBe('http://e.com/?id=3');
    expect(normaliseUrl('http://e.com/?utm_source=x')).toBe('http://e.com/');
    expect(normaliseUrl('http://e.com/?mc_cid=1&mc_eid=2&yclid=3&utmost=1')).toBe('http://e.com/?utmost=1');
  });

  it('honours stripTracking: false and sortQuery: false', () => {
    expect(normaliseUrl('http://e.com/?utm_source=x&b=1&a=2', undefined, { stripTracking: false })).toBe(
      'http://e.com/?a=2&b=1&utm_source=x',
    );
    expect(normaliseUrl('http://e.com/?b=1&a=2&gclid=z', undefined, { sortQuery: false })).toBe(
      'http://e.com/?b=1&a=2',
    );
  });

  it('sorts by decoded name and keeps encodings of values', () => {
    expect(normaliseUrl('http://e.com/?b=%20&a=+')).toBe('http://e.com/?a=+&b=%20');
    expect(normaliseUrl('http://e.com/?flag&a=1')).toBe('http://e.com/?a=1&flag');
  });

  it('resolves against a base', () => {
    expect(normaliseUrl('../x?b=1#f', 'http://e.com/a/b/c')).toBe('http://e.com/a/x?b=1');
    expect(normaliseUrl('//other.com/p', 'https://e.com/')).toBe('https://other.com/p');
  });

  it('rejects unparsable and non-http(s) URLs with InvalidUrlError', () => {
    for (const bad of ['not a url', 'ftp://e.com/x', 'mailto:a@b.c', 'javascript:alert(1)', '', 'http://']) {
      expect(() => normaliseUrl(bad)).toThrow(InvalidUrlError);
      expect(tryNormaliseUrl(bad)).toBeUndefined();
    }
    expect(tryNormaliseUrl('http://E.com')).toBe('http://e.com/');
  });
});

describe('discoveredUrl', () => {
  it('an empty query: dropped in the dedupe key (/a? and /a are one task), kept in the URL to request', () => {
    expect(discoveredUrl('http://e.com/a?')).toEqual({
      url: 'http://e.com/a',
      requestUrl: 'http://e.com/a?',
    });
    expect(discoveredUrl('?', 'http://e.com/a/b')).toEqual({
      url: 'http://e.com/a/b',
      requestUrl: 'http://e.com/a/b?',
    });
    expect(discoveredUrl('/a?#top', 'http://e.com/')).toEqual({
      url: 'http://e.com/a',
      requestUrl: 'http://e.com/a?',
    });
    expect(discoveredUrl('http://e.com/a')).toEqual({ url: 'http://e.com/a' });
    const all: ScopeRules = { hosts: ['*'], include: [], exclude: [], maxDepth: 5 };
    expect(normaliseInScope('http://e.com/?', 0, all)).toEqual({
      ok: true,
      url: 'http://e.com/',
      requestUrl: 'http://e.com/?',
    });
  });
});

describe('hostKey', () => {
  it('is the lower-case host with a non-default port', () => {
    expect(hostKey('HTTP://WWW.Example.com:80/x')).toBe('www.example.com');
    expect(hostKey('http://127.0.0.1:8300/p/1')).toBe('127.0.0.1:8300');
    expect(hostKey('https://[::1]:8443/')).toBe('[::1]:8443');
    expect(() => hostKey('nope')).toThrow(InvalidUrlError);
  });
});

describe('matchesHostPattern', () => {
  it.each([
    ['example.com', 'example.com', true],
    ['EXAMPLE.com', 'example.COM', true],
    ['example.com.', 'example.com', true],
    ['www.example.com', 'example.com', false],
    ['example.com', '*.example.com', true],
    ['a.b.example.com', '*.example.com', true],
    ['badexample.com', '*.example.com', false],
    ['example.com.evil', '*.example.com', false],
    ['anything.org', '*', true],
    ['example.com:8080', 'example.com', true],
    ['example.com:8080', 'example.com:8080', true],
    ['example.com:8081', 'example.com:8080', false],
    ['example.com', 'example.com:8080', false],
    ['x.example.com:9', '*.example.com:9', true],
    ['h:9', '*:9', true],
    ['h:8', '*:9', false],
    ['[::1]:8080', '[::1]', true],
  ])('%s ~ %s = %s', (host, pattern, expected) => {
    expect(matchesHostPattern(host, pattern)).toBe(expected);
  });
});

describe('inScope', () => {
  const scope: ScopeRules = {
    hosts: ['*.example.com', '127.0.0.1:8300'],
    include: [],
    exclude: [/\/private\//],
    maxDepth: 2,
  };

  it('accepts in-scope URLs', () => {
    expect(inScope('https://example.com/a', 0, scope)).toEqual({ ok: true });
    expect(inScope('http://shop.example.com:8080/a', 2, scope)).toEqual({ ok: true });
    expect(inScope('http://127.0.0.1:8300/p/1', 1, scope)).toEqual({ ok: true });
  });

  it('reports the first failing check', () => {
    expect(inScope('ftp://example.com/a', 0, scope)).toEqual({ ok: false, reason: 'scheme' });
    expect(inScope('garbage', 0, scope)).toEqual({ ok: false, reason: 'scheme' });
    expect(inScope('http://other.com/a', 0, scope)).toEqual({ ok: false, reason: 'host' });
    expect(inScope('http://127.0.0.1:8301/p/1', 0, scope)).toEqual({ ok: false, reason: 'host' });
    expect(inScope('http://example.com/a', 3, scope)).toEqual({ ok: false, reason: 'depth' });
    expect(inScope('http://example.com/private/x', 0, scope)).toEqual({ ok: false, reason: 'exclude' });
  });

  it('matches a port pattern against the default port', () => {
    const s: ScopeRules = { ...scope, hosts: ['example.com:443'] };
    expect(inScope('https://example.com/', 0, s)).toEqual({ ok: true });
    expect(inScope('http://example.com/', 0, s)).toEqual({ ok: false, reason: 'host' });
  });

  it('requires an include match when include is non-empty, statelessly for /g regexes', () => {
    const s: ScopeRules = { ...scope, include: [/\/p\/\d+$/g] };
    for (let i = 0; i < 3; i++) expect(inScope('http://example.com/p/1', 0, s)).toEqual({ ok: true });
    expect(inScope('http://example.com/about', 0, s)).toEqual({ ok: false, reason: 'include' });
  });

  it('an empty host list matches nothing; * matches everything', () => {
    expect(inScope('http://e.com/', 0, { ...scope, hosts: [] })).toEqual({ ok: false, reason: 'host' });
    expect(inScope('http://e.com/', 0, { ...scope, hosts: ['*'] })).toEqual({ ok: true });
  });
});

describe('normaliseInScope', () => {
  const scope: ScopeRules = {
    hosts: ['*.example.com', '127.0.0.1:8300', '[::1]', 'Trail.Example.org.'],
    include: [],
    exclude: [/\/private\//, /[?&]b=/],
    maxDepth: 2,
  };
  const inputs = [
    'https://EXAMPLE.com/a?b=2&a=1#frag',
    'http://shop.example.com:8080/%7euser/?utm_source=x',
    'http://127.0.0.1:8300/p/1',
    'http://127.0.0.1:8301/p/1',
    'http://[::1]:9000/x',
    'http://trail.example.org./x',
    'http://other.com/a',
    'https://example.com/private/x',
    'https://example.com/q?a=1&b=2',
    'ftp://example.com/a',
    'not a url',
  ];

  it('gives what normaliseUrl then inScope give, on one parse', () => {
    for (const depth of [0, 3]) {
      for (const input of inputs) {
        const url = tryNormaliseUrl(input);
        const expected =
          url === undefined
            ? { ok: false, reason: 'invalid' }
            : inScope(url, depth, scope).ok
              ? { ok: true, url, requestUrl: discoveredUrl(input).requestUrl }
              : inScope(url, depth, scope);
        expect(normaliseInScope(input, depth, scope), `${input} at depth ${depth}`).toEqual(expected);
      }
    }
    expect(normaliseInScope('https://EXAMPLE.com/a?b=2&a=1#frag', 0, scope)).toEqual({
      ok: false,
      reason: 'exclude',
    });
    expect(normaliseInScope('http://[::1]:9000/x', 1, scope)).toEqual({
      ok: true,
      url: 'http://[::1]:9000/x',
    });
  });

  it('passes the normalise options through', () => {
    const all: ScopeRules = { hosts: ['*'], include: [], exclude: [], maxDepth: 5 };
    expect(normaliseInScope('http://e.com/?z=1&a=2', 0, all, { sortQuery: false })).toEqual({
      ok: true,
      url: 'http://e.com/?z=1&a=2',
    });
    expect(normaliseInScope('http://e.com/?z=1&a=2', 0, all)).toEqual({
      ok: true,
      requestUrl: 'http://e.com/?z=1&a=2',
      url: 'http://e.com/?a=2&z=1',
    });
  });
});
