import { describe, expect, it } from 'vitest';
import { isSessionParam, stripSessionPath } from '../../../src/core/traps/session-ids.js';
import { discoveredUrl, normaliseUrl } from '../../../src/core/url.js';

describe('session ids in the dedupe key', () => {
  it.each([
    ['http://s.test/a?jsessionid=ABCDEF0123456789&x=1', 'http://s.test/a?x=1'],
    ['http://s.test/a?PHPSESSID=k2l3m4n5o6&x=1', 'http://s.test/a?x=1'],
    ['http://s.test/a?ASPSESSIONIDQQGGQGPA=FBBJKCPALKAOGNJDAJHNBIFB', 'http://s.test/a'],
    ['http://s.test/a?ASP.NET_SessionId=lit3py55t21z5v55vlm25s55', 'http://s.test/a'],
    ['http://s.test/a?CFID=1234&CFTOKEN=56789012&p=2', 'http://s.test/a?p=2'],
    ['http://s.test/a?zenid=abc&osCsid=def&XTCsid=ghi', 'http://s.test/a'],
    ['http://s.test/a?sessionid=1&session_id=2&sessid=3', 'http://s.test/a'],
    ['http://s.test/a?sid=9f86d081884c7d659a2feaa0c55ad015', 'http://s.test/a'],
    // A short sid is a section id as often as a session: kept.
    ['http://s.test/a?sid=3', 'http://s.test/a?sid=3'],
    ['http://s.test/cart;jsessionid=ABCDEF0123456789', 'http://s.test/cart'],
    ['http://s.test/cart;JSESSIONID=ABCDEF0123456789?x=1', 'http://s.test/cart?x=1'],
    ['http://s.test/a;jsessionid=XYZ/b/c', 'http://s.test/a/b/c'],
    ['http://s.test/a;v=2;jsessionid=XYZ/b', 'http://s.test/a;v=2/b'],
    ['http://s.test/(S(lit3py55t21z5v55vlm25s55))/page.aspx', 'http://s.test/page.aspx'],
    ['http://s.test/(X(1)S(lit3py55t21z5v55vlm25s55))/a/', 'http://s.test/a/'],
    ['http://s.test/(S(lit3py55t21z5v55vlm25s55))', 'http://s.test/'],
    // Not a session: kept.
    ['http://s.test/a?session=pricing', 'http://s.test/a?session=pricing'],
    ['http://s.test/a;v=2', 'http://s.test/a;v=2'],
    ['http://s.test/(draft)/a', 'http://s.test/(draft)/a'],
  ])('%s -> %s', (input, key) => {
    expect(normaliseUrl(input)).toBe(key);
    // Idempotent, as every key must be.
    expect(normaliseUrl(key)).toBe(key);
  });

  it('keeps the session id on the wire: the key drops it, requestUrl is as the site wrote it', () => {
    expect(discoveredUrl('/cart;jsessionid=ABC123DEF?b=1&a=2', 'http://s.test/x')).toEqual({
      url: 'http://s.test/cart?a=2&b=1',
      requestUrl: 'http://s.test/cart;jsessionid=ABC123DEF?b=1&a=2',
    });
  });

  it('keeps them in the key when turned off (traps.sessionIds: false)', () => {
    const off = { stripSessionIds: false };
    expect(normaliseUrl('http://s.test/a;jsessionid=X?PHPSESSID=y', undefined, off)).toBe(
      'http://s.test/a;jsessionid=X?PHPSESSID=y',
    );
  });

  it('drops a host’s learned parameters, case-insensitively, on that host only', () => {
    const learned = new Set(['visit']);
    const o = { ignoredParams: (host: string) => (host === 'a.test' ? learned : undefined) };
    expect(normaliseUrl('http://a.test/x?Visit=1&p=2', undefined, o)).toBe('http://a.test/x?p=2');
    expect(normaliseUrl('http://b.test/x?visit=1&p=2', undefined, o)).toBe('http://b.test/x?p=2&visit=1');
  });

  it('names sessions by name, and sid by a minted value', () => {
    expect(isSessionParam('JSESSIONID', '')).toBe(true);
    expect(isSessionParam('aspsessionidABCDEFGH', 'x')).toBe(true);
    expect(isSessionParam('sid', 'abcdefgh')).toBe(true);
    expect(isSessionParam('sid', '42')).toBe(false);
    expect(isSessionParam('side', 'abcdefghij')).toBe(false);
    expect(stripSessionPath('/a/b')).toBe('/a/b');
  });
});
