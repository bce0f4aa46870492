/**
 * The request target the fetcher puts on the request line (http-parts.ts requestTarget), checked
 * on every http(s) URL of the WHATWG URL test data: the URL's serialisation from its path to
 * before its fragment, so an empty query keeps its `?` (a browser sends `GET /path?`).
 */
import { describe, expect, it } from 'vitest';
import { requestTarget } from '../../src/adapters/fetch/http-parts.js';
import { NODE_URL_DEVIATIONS, nodeAgrees, urlTestCases } from '../helpers/urltestdata.js';

describe('requestTarget', () => {
  it('is the serialisation from the path to before the fragment, for every http(s) URL of urltestdata.json', () => {
    let checked = 0;
    let emptyQueries = 0;
    for (const c of urlTestCases()) {
      if (c.failure || c.href === undefined || !/^https?:$/.test(c.protocol ?? '')) continue;
      if (!nodeAgrees(c)) {
        // Node's parser lags the data here: not crawld's to fix, and listed.
        expect(NODE_URL_DEVIATIONS.has(c.input), c.input).toBe(true);
        continue;
      }
      const url = new URL(c.href);
      const target = requestTarget(url);
      // What the data says precedes the path: scheme, `//`, userinfo and host.
      const userinfo = c.username || c.password ? `${c.username}${c.password ? `:${c.password}` : ''}@` : '';
      const prefix = `${c.protocol}//${userinfo}${c.host}`;
      const hash = c.href.indexOf('#');
      const withoutFragment = hash < 0 ? c.href : c.href.slice(0, hash);
      expect(withoutFragment.startsWith(prefix), c.href).toBe(true);
      expect(target, c.href).toBe(withoutFragment.slice(prefix.length));
      if (c.search === '' && target.endsWith('?')) {
        emptyQueries++;
        expect(target, c.href).toBe(`${c.pathname}?`);
      } else {
        expect(target, c.href).toBe(`${c.pathname}${c.search}`);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(200);
    // `?` against http://example.org/foo/bar, http://example.org/test?#, https://x/?#...
    expect(emptyQueries).toBeGreaterThanOrEqual(3);
  });

  it('keeps an empty query and drops the fragment', () => {
    const t = (u: string) => requestTarget(new URL(u));
    expect(t('http://h/a?')).toBe('/a?');
    expect(t('http://h/?')).toBe('/?');
    expect(t('http://h?')).toBe('/?');
    expect(t('http://h/a?#x')).toBe('/a?');
    expect(t('http://h/a#x?')).toBe('/a');
    expect(t('http://h/a?b#x')).toBe('/a?b');
    expect(t('https://u:p%2F%23@h:8443/a%23?q=%23#f')).toBe('/a%23?q=%23');
    expect(t('http://[::1]:81/p?')).toBe('/p?');
    expect(requestTarget(new URL('?', 'http://h/a/b'))).toBe('/a/b?');
  });
});
