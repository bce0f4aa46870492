import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import {
  charsetParam,
  decodeHtml,
  decodeXml,
  encodingOfLabel,
  sniffHtmlEncoding,
} from '../../src/adapters/parse/charset.js';
import { resolveLink } from '../../src/adapters/parse/field-values.js';
import { JsonExtractor } from '../../src/adapters/parse/json-extractor.js';
import { queryEncodingOf } from '../../src/adapters/parse/url-encoding.js';

/** Fixtures are encoded at test time by iconv-lite, an implementation independent of the decoder's. */
const enc = (text: string, encoding: string) => iconv.encode(text, encoding);
const page = (title: string, head = '') =>
  `<!doctype html><html><head>${head}<title>${title}</title></head><body>${title}</body></html>`;

/** One sample per encoding the issue names, in characters each encoding can represent. */
const SAMPLES: [string, string][] = [
  ['gbk', '商品一号 价格 ￥128'],
  ['big5', '商品一號 價格'],
  ['shift_jis', '商品一番 価格 ｶﾀｶﾅ'],
  ['euc-jp', '日本語の商品 価格'],
  ['euc-kr', '상품 가격 한국어'],
  ['windows-1251', 'Товар цена Ёё'],
  ['koi8-r', 'Товар цена Ёё'],
  ['windows-1252', 'Café crème €12,99 Ÿ ™'],
];

describe('the encoding of an HTML body, as the WHATWG HTML standard decides it', () => {
  it.each(SAMPLES)('%s declared in the Content-Type header', (encoding, text) => {
    const doc = decodeHtml(enc(page(text), encoding), `text/html; charset=${encoding}`);
    expect(doc).toMatchObject({ encoding, source: 'header', fallback: false });
    expect(doc.text).toContain(`<title>${text}</title>`);
  });

  it.each(SAMPLES)('%s declared by <meta charset>', (encoding, text) => {
    const doc = decodeHtml(enc(page(text, `<meta charset="${encoding}">`), encoding), 'text/html');
    expect(doc).toMatchObject({ encoding, source: 'meta' });
    expect(doc.text).toContain(`<title>${text}</title>`);
  });

  it.each(SAMPLES)('%s declared by <meta http-equiv="Content-Type">', (encoding, text) => {
    const meta = `<meta http-equiv="Content-Type" content="text/html; charset=${encoding.toUpperCase()}">`;
    const doc = decodeHtml(enc(page(text, meta), encoding), undefined);
    expect(doc).toMatchObject({ encoding, source: 'meta' });
    expect(doc.text).toContain(`<title>${text}</title>`);
  });

  it('a BOM decides, and beats a header that says otherwise', () => {
    const text = '商品 café';
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), enc(page(text), 'utf-16le')]);
    const utf16be = Buffer.concat([Buffer.from([0xfe, 0xff]), enc(page(text), 'utf-16be')]);
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(page(text))]);
    for (const [body, encoding] of [
      [utf16le, 'utf-16le'],
      [utf16be, 'utf-16be'],
      [utf8, 'utf-8'],
    ] as const) {
      const doc = decodeHtml(body, 'text/html; charset=windows-1252');
      expect(doc).toMatchObject({ encoding, source: 'bom' });
      expect(doc.text.startsWith('<!doctype')).toBe(true); // the BOM itself is not text
      expect(doc.text).toContain(`<title>${text}</title>`);
    }
  });

  it('the header beats a meta that contradicts it', () => {
    const body = enc(page('商品一号', '<meta charset="windows-1251">'), 'gbk');
    expect(decodeHtml(body, 'text/html; charset=gbk')).toMatchObject({ encoding: 'gbk', source: 'header' });
    expect(decodeHtml(body, 'text/html; charset=gbk').text).toContain('商品一号');
  });

  it('undeclared: UTF-8 when the bytes are valid UTF-8, else windows-1252', () => {
    expect(decodeHtml(Buffer.from(page('商品 café')), 'text/html')).toMatchObject({
      encoding: 'utf-8',
      source: 'default',
    });
    const latin = decodeHtml(enc(page('Café €5'), 'windows-1252'), 'text/html');
    expect(latin).toMatchObject({ encoding: 'windows-1252', source: 'default', fallback: false });
    expect(latin.text).toContain('Café €5');
  });

  it('labels map as the Encoding standard says', () => {
    expect(encodingOfLabel('iso-8859-1')).toBe('windows-1252');
    expect(encodingOfLabel('latin1')).toBe('windows-1252');
    expect(encodingOfLabel('US-ASCII')).toBe('windows-1252');
    expect(encodingOfLabel('gb2312')).toBe('gbk');
    expect(encodingOfLabel(' Shift-JIS ')).toBe('shift_jis');
    expect(encodingOfLabel('x-sjis')).toBe('shift_jis');
    expect(encodingOfLabel('ks_c_5601-1987')).toBe('euc-kr');
    expect(encodingOfLabel('iso-2022-kr')).toBe('replacement');
    expect(encodingOfLabel('utf8')).toBe('utf-8');
    expect(encodingOfLabel('no-such-charset')).toBeUndefined();
    // A latin1-labelled page is windows-1252: 0x80 is the euro sign, not a C1 control.
    expect(decodeHtml(Buffer.from([0x80, 0x31, 0x32]), 'text/html; charset=ISO-8859-1').text).toBe('€12');
  });

  it('reads a charset parameter quoted, in odd case, with spaces', () => {
    expect(charsetParam('text/html; CharSet="GBK"')).toBe('GBK');
    expect(charsetParam('text/html;charset = shift_jis ; q=1')).toBe('shift_jis');
    expect(charsetParam('text/html; foo=bar; charset=koi8-r')).toBe('koi8-r');
    expect(charsetParam('text/html')).toBeUndefined();
    expect(decodeHtml(enc(page('Товар'), 'koi8-r'), 'TEXT/HTML; CHARSET="KOI8-R"').text).toContain('Товар');
  });

  it('an unknown declared charset: the default, counted as a fallback', () => {
    const header = sniffHtmlEncoding(Buffer.from(page('x')), 'text/html; charset=x-klingon');
    expect(header).toEqual({ encoding: 'utf-8', source: 'default', fallback: true });
    const meta = sniffHtmlEncoding(
      enc(page('Café', '<meta charset="x-klingon">'), 'windows-1252'),
      'text/html',
    );
    expect(meta).toEqual({ encoding: 'windows-1252', source: 'default', fallback: true });
    // An unknown header label does not hide a meta the prescan finds.
    const both = sniffHtmlEncoding(
      enc(page('商品', '<meta charset="gbk">'), 'gbk'),
      'text/html; charset=bogus',
    );
    expect(both).toEqual({ encoding: 'gbk', source: 'meta', fallback: true });
  });

  it('a <meta charset> past the first 1024 bytes is not seen', () => {
    const filler = `<!-- ${'x'.repeat(1100)} -->`;
    const body = enc(
      `<html><head>${filler}<meta charset="gbk"><title>Café</title></head></html>`,
      'windows-1252',
    );
    expect(sniffHtmlEncoding(body, 'text/html')).toMatchObject({
      encoding: 'windows-1252',
      source: 'default',
    });
  });

  it('a meta naming UTF-16 means UTF-8; x-user-defined in a meta means windows-1252', () => {
    expect(sniffHtmlEncoding(Buffer.from(page('é', '<meta charset="utf-16le">')), undefined)).toMatchObject({
      encoding: 'utf-8',
      source: 'meta',
    });
    expect(
      sniffHtmlEncoding(Buffer.from(page('e', '<meta charset="x-user-defined">')), undefined),
    ).toMatchObject({
      encoding: 'windows-1252',
    });
  });

  it('wrong or cut bytes become U+FFFD, never an exception', () => {
    // Declared GBK, but the bytes are UTF-8.
    const wrong = decodeHtml(Buffer.from(page('商品 ok')), 'text/html; charset=gbk');
    expect(wrong.text).toContain('ok');
    // Declared Shift_JIS, body cut in the middle of a two-byte character at the size cap.
    const cut = enc('価格価格', 'shift_jis').subarray(0, 7);
    expect(decodeHtml(cut, 'text/html; charset=shift_jis').text).toBe('価格価\uFFFD');
    // Undeclared UTF-8 cut mid-character is still recognised as UTF-8.
    const cut8 = Buffer.from(page('商品')).subarray(0, -19);
    expect(sniffHtmlEncoding(cut8, undefined).encoding).toBe('utf-8');
    expect(decodeHtml(Buffer.from([0xff, 0x00, 0xd8]), 'text/html; charset=utf-16le').text).toContain(
      '\uFFFD',
    );
    expect(decodeHtml(Buffer.from('anything'), 'text/html; charset=iso-2022-kr').text).toBe('\uFFFD');
  });
});

describe('links resolve with the query in the document encoding', () => {
  const base = new URL('http://shop.test/p/1');

  it("a GBK page's /s?q=价格 is requested as /s?q=%BC%DB%B8%F1, the path in UTF-8", () => {
    expect(resolveLink('/s?q=价格', base, queryEncodingOf('gbk'))).toBe('http://shop.test/s?q=%BC%DB%B8%F1');
    expect(resolveLink('/价格?q=价格#top', base, queryEncodingOf('gbk'))).toBe(
      'http://shop.test/%E4%BB%B7%E6%A0%BC?q=%BC%DB%B8%F1',
    );
  });

  it('Shift_JIS and windows-1252 queries; characters the encoding lacks become &#NNNN;', () => {
    expect(resolveLink('/s?q=日本', base, queryEncodingOf('shift_jis'))).toBe(
      'http://shop.test/s?q=%93%FA%96{',
    );
    expect(resolveLink('/s?q=€&x=价', base, queryEncodingOf('windows-1252'))).toBe(
      'http://shop.test/s?q=%80&x=%26%2320215%3B',
    );
  });

  it('UTF-8 and UTF-16 documents, and ASCII queries, keep the UTF-8 URL', () => {
    expect(queryEncodingOf('utf-8')).toBeUndefined();
    expect(queryEncodingOf('utf-16le')).toBeUndefined();
    expect(resolveLink('/s?q=价格', base, queryEncodingOf('utf-16be'))).toBe(
      'http://shop.test/s?q=%E4%BB%B7%E6%A0%BC',
    );
    expect(resolveLink('/s?a=1&b=%41', base, 'gbk')).toBe('http://shop.test/s?a=1&b=%41');
  });
});

describe('XML bodies (sitemaps, feeds): XML 1.0 Appendix F', () => {
  const doc = (decl: string) => `<?xml version="1.0"${decl}?><rss><title>Цена €5</title></rss>`;
  it('BOM, then Content-Type charset, then the XML declaration, then UTF-8', () => {
    const text = (s: string) => /<title>(.*)<\/title>/.exec(s)?.[1];
    expect(text(decodeXml(iconv.encode(doc(' encoding="windows-1251"'), 'win1251'), undefined))).toBe(
      'Цена €5',
    );
    const koi8 = iconv.encode(`<?xml version='1.0' encoding='KOI8-R'?><title>Цена</title>`, 'koi8-r');
    expect(text(decodeXml(koi8, 'text/xml'))).toBe('Цена');
    // The header wins over the declaration; a BOM wins over both.
    expect(
      text(decodeXml(iconv.encode(doc(' encoding="utf-8"'), 'win1251'), 'text/xml; charset=cp1251')),
    ).toBe('Цена €5');
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(doc(' encoding="windows-1251"')),
    ]);
    expect(text(decodeXml(bom, 'text/xml; charset=cp1251'))).toBe('Цена €5');
    expect(text(decodeXml(Buffer.from(doc('')), undefined))).toBe('Цена €5');
    // Undeclared and not UTF-8: windows-1252, never U+FFFD.
    expect(decodeXml(iconv.encode('<a>café</a>', 'latin1'), undefined)).toBe('<a>café</a>');
    // An unknown label falls through to the default.
    expect(decodeXml(Buffer.from('<?xml version="1.0" encoding="no-such"?><a>é</a>'), undefined)).toContain(
      'é',
    );
  });
});

describe('JSON bodies', () => {
  it('stay UTF-8 whatever the Content-Type says (RFC 8259), BOM tolerated', () => {
    const ex = new JsonExtractor({ fields: { name: '$.name' } });
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from(JSON.stringify({ name: '商品 café' })),
    ]);
    const out = ex.extract({
      url: 'http://api.test/x',
      contentType: 'application/json',
      contentTypeHeader: 'application/json; charset=iso-8859-1',
      body,
    });
    expect(out.fields).toEqual({ name: '商品 café' });
    expect(out.encoding).toBe('utf-8');
  });
});
