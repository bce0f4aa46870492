import { describe, expect, it } from 'vitest';
import { findMetaRefresh } from '../../src/adapters/parse/meta-refresh.js';
import { parseRefresh } from '../../src/core/refresh.js';

const BASE = 'http://shop.test/dir/page.html';
const SAME = Symbol('the same document');

/**
 * web-platform-tests, html/semantics/document-metadata/the-meta-element/pragma-directives/
 * attr-meta-http-equiv-refresh (the parsing matrix its tests share with the Refresh header):
 * content, then the delay in seconds and the URL it resolves to (SAME: a refresh of the
 * document itself), or null where a browser does not refresh at all.
 */
const WPT: [string, [number, string | typeof SAME] | null][] = [
  ['', null],
  ['1', [1, SAME]],
  ['1 ', [1, SAME]],
  ['1\t', [1, SAME]],
  ['1\r', [1, SAME]],
  ['1\n', [1, SAME]],
  ['1\f', [1, SAME]],
  ['1;', [1, SAME]],
  ['1,', [1, SAME]],
  ['1; url=foo', [1, 'foo']],
  ['1, url=foo', [1, 'foo']],
  ['1 url=foo', [1, 'foo']],
  ['1;\turl=foo', [1, 'foo']],
  ['1,\turl=foo', [1, 'foo']],
  ['1\turl=foo', [1, 'foo']],
  ['1;\rurl=foo', [1, 'foo']],
  ['1,\rurl=foo', [1, 'foo']],
  ['1\rurl=foo', [1, 'foo']],
  ['1;\nurl=foo', [1, 'foo']],
  ['1,\nurl=foo', [1, 'foo']],
  ['1\nurl=foo', [1, 'foo']],
  ['1;\furl=foo', [1, 'foo']],
  ['1,\furl=foo', [1, 'foo']],
  ['1\furl=foo', [1, 'foo']],
  ['1url=foo', null],
  ['1x;url=foo', null],
  ['1 x;url=foo', [1, 'x;url=foo']],
  ['1;;url=foo', [1, ';url=foo']],
  ['  1  ;  url  =  foo', [1, 'foo']],
  ['  1  ,  url  =  foo', [1, 'foo']],
  ['  1  ;  foo', [1, 'foo']],
  ['  1  ,  foo', [1, 'foo']],
  ['  1  url  =  foo', [1, 'foo']],
  ['1; url=foo ', [1, 'foo']],
  ['1; url=f\to\no', [1, 'foo']],
  ['1; url="foo"bar', [1, 'foo']],
  ["1; url='foo'bar", [1, 'foo']],
  ['1; url="foo\'bar', [1, "foo'bar"]],
  ['1; url foo', [1, 'url foo']],
  ['1; urlfoo', [1, 'urlfoo']],
  ['1; urfoo', [1, 'urfoo']],
  ['1; ufoo', [1, 'ufoo']],
  ['1; "foo"bar', [1, 'foo']],
  ['; foo', null],
  [';foo', null],
  [', foo', null],
  [',foo', null],
  ['foo', null],
  ['+1; url=foo', null],
  ['-1; url=foo', null],
  ['+0; url=foo', null],
  ['-0; url=foo', null],
  ['0; url=foo', [0, 'foo']],
  ['+1; foo', null],
  ['-1; foo', null],
  ['+0; foo', null],
  ['-0; foo', null],
  ['0; foo', [0, 'foo']],
  ['+1', null],
  ['-1', null],
  ['+0', null],
  ['-0', null],
  ['0', [0, SAME]],
  ['1.9; url=foo', [1, 'foo']],
  ['1.9..5.; url=foo', [1, 'foo']],
  ['.9; url=foo', [0, 'foo']],
  ['0.9; url=foo', [0, 'foo']],
  ['0...9; url=foo', [0, 'foo']],
  ['0...; url=foo', [0, 'foo']],
  ['1e0; url=foo', null],
  ['1e1; url=foo', null],
  ['10e-1; url=foo', null],
  ['-0.1; url=foo', null],
];

describe('parseRefresh (the HTML standard shared declarative refresh steps)', () => {
  it.each(WPT)('%j', (content, expected) => {
    const got = parseRefresh(content);
    if (expected === null) {
      expect(got).toBeUndefined();
      return;
    }
    const [delay, target] = expected;
    expect(got?.delaySeconds).toBe(delay);
    if (target === SAME) expect(got?.url).toBeUndefined();
    else expect(new URL(got?.url ?? '', BASE).href).toBe(new URL(target, BASE).href);
  });

  it('keeps absolute URLs, case-insensitive URL= and long delays as written', () => {
    expect(parseRefresh('0;URL=https://other.test/x?a=1')).toEqual({
      delaySeconds: 0,
      url: 'https://other.test/x?a=1',
    });
    expect(parseRefresh('5; UrL = /new')).toEqual({ delaySeconds: 5, url: '/new' });
    expect(parseRefresh('99999999999999999999; url=/x')?.delaySeconds).toBeGreaterThan(1e18);
  });
});

describe('findMetaRefresh (adapters/parse/meta-refresh.ts)', () => {
  const find = (html: string, type = 'text/html; charset=utf-8') => findMetaRefresh(Buffer.from(html), type);

  it('takes the first valid refresh of the document, outside noscript and template', () => {
    expect(
      find(
        '<html><head><noscript><meta http-equiv="refresh" content="0;url=/a"></noscript>' +
          '<template><meta http-equiv=refresh content="0;url=/b"></template>' +
          '<meta http-equiv="refresh" content="">' +
          '<meta http-equiv="Refresh" content="x">' +
          '<meta HTTP-EQUIV="REFRESH" CONTENT="3; URL=/c"><meta http-equiv="refresh" content="0;url=/d"></head></html>',
      ),
    ).toEqual({ delaySeconds: 3, url: '/c' });
  });

  it('finds it in the body too, as browsers and wget do; none on a page without one', () => {
    expect(
      find('<html><head></head><body><p>moved</p><meta http-equiv="refresh" content="0;url=/late"></body>'),
    ).toEqual({ delaySeconds: 0, url: '/late' });
    expect(find('<html><head><title>no refresh</title></head><body>refresh</body>')).toBeUndefined();
  });

  it('decodes the page in its encoding: a windows-1251 URL stays what the page wrote', () => {
    const bytes = Buffer.concat([
      Buffer.from('<meta charset="windows-1251"><meta http-equiv="refresh" content="0;url=/'),
      Buffer.from([0xef, 0xf0, 0xe8]),
      Buffer.from('">'),
    ]);
    expect(findMetaRefresh(bytes, 'text/html')).toEqual({ delaySeconds: 0, url: '/при' });
  });
});
