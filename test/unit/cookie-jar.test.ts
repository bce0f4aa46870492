import { describe, expect, it } from 'vitest';
import { JobCookieJar, withinSizeLimits } from '../../src/adapters/cookies/job-jar.js';
import { VolatileMapStore } from '../../src/adapters/shared-map/volatile-map-store.js';

const limits = { maxPerDomain: 50, maxTotal: 3000 };

function jar(l = limits) {
  const received: string[] = [];
  const j = new JobCookieJar({
    jobId: 'j',
    store: new VolatileMapStore(),
    limits: l,
    observer: { received: (_job, outcome) => received.push(outcome) },
  });
  return { j, received };
}

const u = (s: string) => new URL(s);

describe('JobCookieJar (RFC 6265 through tough-cookie)', () => {
  it('host-only cookies go back to their host only; domain cookies to the domain and its subdomains', async () => {
    const { j } = jar();
    await j.storeResponse(u('http://shop.example.com/a'), [
      'host=1; Path=/',
      'dom=2; Domain=example.com; Path=/',
    ]);
    expect(await j.cookieHeader(u('http://shop.example.com/x'))).toBe('host=1; dom=2');
    expect(await j.cookieHeader(u('http://www.example.com/x'))).toBe('dom=2');
    expect(await j.cookieHeader(u('http://example.com/'))).toBe('dom=2');
    expect(await j.cookieHeader(u('http://sub.shop.example.com/'))).toBe('dom=2');
    expect(await j.cookieHeader(u('http://example.org/'))).toBe('');
    expect(await j.cookieHeader(u('http://notexample.com/'))).toBe('');
  });

  it('refuses cookies for a public suffix or another domain', async () => {
    const { j, received } = jar();
    await j.storeResponse(u('http://shop.example.co.uk/'), [
      'a=1; Domain=co.uk',
      'b=2; Domain=other.example.co.uk',
      'c=3; Domain=example.co.uk',
    ]);
    expect(received).toEqual(['rejected', 'rejected', 'stored']);
    expect(await j.cookieHeader(u('http://www.example.co.uk/'))).toBe('c=3');
    expect(await j.cookieHeader(u('http://other.co.uk/'))).toBe('');
  });

  it('path, Secure, replacement and deletion by an expired cookie', async () => {
    const { j } = jar();
    await j.storeResponse(u('https://s.example/account/login'), [
      'sid=abc; Path=/account',
      'pref=x; Path=/',
      'tok=t; Secure; Path=/',
    ]);
    expect(await j.cookieHeader(u('https://s.example/account/orders'))).toBe('sid=abc; pref=x; tok=t');
    expect(await j.cookieHeader(u('https://s.example/accounting'))).toBe('pref=x; tok=t');
    expect(await j.cookieHeader(u('http://s.example/'))).toBe('pref=x');
    await j.storeResponse(u('https://s.example/'), ['pref=y; Path=/']);
    expect(await j.cookieHeader(u('https://s.example/'))).toBe('pref=y; tok=t');
    await j.storeResponse(u('https://s.example/'), [
      'pref=gone; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT',
    ]);
    expect(await j.cookieHeader(u('https://s.example/'))).toBe('tok=t');
    await j.storeResponse(u('https://s.example/'), ['tok=; Path=/; Max-Age=0; Secure']);
    expect(await j.cookieHeader(u('https://s.example/'))).toBe('');
    expect(j.size).toBe(1);
  });

  it('keeps at most maxPerDomain per domain and maxTotal in all, dropping the least recently used', async () => {
    const { j } = jar({ maxPerDomain: 3, maxTotal: 5 });
    const a = u('http://a.example/');
    await j.storeResponse(a, ['a1=1', 'a2=2', 'a3=3']);
    await j.cookieHeader(a); // all three used; a1 stays older than a2, a3 by order
    await j.storeResponse(a, ['a4=4']);
    expect(await j.cookieHeader(a)).toBe('a2=2; a3=3; a4=4');
    for (let i = 0; i < 4; i++) await j.storeResponse(u(`http://h${i}.example/`), [`h=${i}`]);
    expect(j.size).toBe(5);
    // The least recently used went first: a.example's cookies were sent before h0..h3 were set.
    expect(await j.cookieHeader(u('http://h3.example/'))).toBe('h=3');
    expect(await j.cookieHeader(u('http://h0.example/'))).toBe('h=0');
    expect((await j.cookieHeader(a)).split('; ').length).toBe(1);
  });

  it('ignores a cookie whose name and value pass 4096 bytes, drops attributes over 1024', async () => {
    expect(withinSizeLimits(`a=${'x'.repeat(4095)}`)).toBeDefined();
    expect(withinSizeLimits(`a=${'x'.repeat(4096)}`)).toBeUndefined();
    expect(withinSizeLimits(`a=1; Path=/${'p'.repeat(1100)}; Secure`)).toBe('a=1; Secure');
    const { j, received } = jar();
    await j.storeResponse(u('http://big.example/'), [`huge=${'x'.repeat(5000)}`, 'ok=1']);
    expect(received).toEqual(['rejected', 'stored']);
    expect(await j.cookieHeader(u('http://big.example/'))).toBe('ok=1');
  });

  it('seeds the config cookies for a URL as host-only cookies on /', async () => {
    const { j } = jar();
    await j.seed(u('https://api.example/v1/items'), { session: 's3cr3t', lang: 'en' });
    expect(await j.cookieHeader(u('https://api.example/other'))).toBe('session=s3cr3t; lang=en');
    expect(await j.cookieHeader(u('https://www.api.example/'))).toBe('');
  });
});
