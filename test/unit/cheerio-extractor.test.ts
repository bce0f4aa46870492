import { describe, expect, it } from 'vitest';
import { CheerioExtractor, parseNumber } from '../../src/adapters/parse/cheerio-extractor.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { DEFAULT_EXTRACTION, type ExtractionRules } from '../../src/core/rules.js';

const PAGE = 'http://shop.test/dir/page.html';

function html(body: string, head = ''): Buffer {
  return Buffer.from(`<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`);
}

function run(rules: ExtractionRules, body: Buffer, contentType = 'text/html', url = PAGE) {
  return new CheerioExtractor(rules).extract({ url, contentType, body });
}

const noLinks = { follow: [], followAllLinks: false } as const;

describe('CheerioExtractor fields', () => {
  it('extracts the default title and description', () => {
    const r = run(
      DEFAULT_EXTRACTION,
      html('', '<title>  Hello\n   World </title><meta name="description" content="A page">'),
    );
    expect(r.fields).toEqual({ title: 'Hello World', description: 'A page' });
    expect(r.errors).toEqual([]);
  });

  it('reads attributes, applies regex capture groups and parses numbers', () => {
    const rules: ExtractionRules = {
      ...noLinks,
      fields: {
        price: { selector: '.price', type: 'number' },
        sku: { selector: '.sku', regex: 'SKU-(\\d+)' },
        whole: { selector: '.sku', regex: '\\d+' },
        img: { selector: 'img', attr: 'src' },
        tags: { selector: '.tag', all: true },
        nums: { selector: '.n', all: true, type: 'number' },
      },
    };
    const r = run(
      rules,
      html(
        '<span class="price">$1,234.50</span><span class="sku">Item SKU-42 </span><img src="/a.png">' +
          '<i class="tag">a</i><i class="tag"> b </i><i class="tag"></i><b class="n">1</b><b class="n">x</b><b class="n">-2.5</b>',
      ),
    );
    expect(r.fields).toEqual({
      price: 1234.5,
      sku: '42',
      whole: '42',
      img: '/a.png',
      tags: ['a', 'b'],
      nums: [1, -2.5],
    });
    expect(r.errors).toEqual(['field "nums": not a number "x"']);
  });

  it('missing non-required fields are null (or [] for all); required ones are errors', () => {
    const rules: ExtractionRules = {
      ...noLinks,
      fields: {
        opt: { selector: '.nope' },
        req: { selector: '.nope', required: true },
        reqAll: { selector: '.nope', all: true, required: true },
        emptyAttr: { selector: 'a', attr: 'title', required: true },
        many: { selector: '.nope', all: true },
      },
    };
    const r = run(rules, html('<a href="#">x</a>'));
    expect(r.fields).toEqual({ opt: null, req: null, reqAll: [], emptyAttr: null, many: [] });
    expect(r.errors).toEqual([
      'field "req": required value missing',
      'field "reqAll": required value missing',
      'field "emptyAttr": required value missing',
    ]);
  });

  it('reports regex misses and number failures as errors with null values', () => {
    const rules: ExtractionRules = {
      ...noLinks,
      fields: {
        sku: { selector: '.sku', regex: 'SKU-(\\d+)' },
        price: { selector: '.price', type: 'number' },
      },
    };
    const r = run(rules, html('<span class="sku">none</span><span class="price">call us</span>'));
    expect(r.fields).toEqual({ sku: null, price: null });
    expect(r.errors).toEqual([
      'field "sku": regex did not match "none"',
      'field "price": not a number "call us"',
    ]);
  });

  it('rejects a bad regex or selector at construction', () => {
    expect(() => new CheerioExtractor({ ...noLinks, fields: { x: { selector: 'a', regex: '(' } } })).toThrow(
      InvalidArgumentError,
    );
    expect(() => new CheerioExtractor({ ...noLinks, fields: { x: { selector: 'a[[' } } })).toThrow(
      InvalidArgumentError,
    );
    expect(
      () =>
        new CheerioExtractor({
          fields: {},
          followAllLinks: false,
          follow: [{ selector: ':bogus(', priority: 1 }],
        }),
    ).toThrow(InvalidArgumentError);
  });

  it('survives malformed HTML', () => {
    const body = Buffer.from(
      '<html><title>Broken &amp; <b>bad</title><div class="price">$5<p><span class="price">$7</div></td></table><a href="/x">x',
    );
    const r = run(
      {
        fields: { title: { selector: 'title' }, price: { selector: '.price', all: true, type: 'number' } },
        follow: [],
        followAllLinks: { priority: 1 },
      },
      body,
    );
    expect(r.fields['title']).toBe('Broken & <b>bad');
    // Recovery of misnested tags is the parser's business; the point is that both prices are found.
    expect(r.fields['price']).toHaveLength(2);
    expect((r.fields['price'] as number[])[1]).toBe(7);
    expect(r.links).toEqual([{ url: 'http://shop.test/x', priority: 1 }]);
  });

  it('decodes invalid UTF-8 as U+FFFD without throwing, and strips a BOM', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<title>caf'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from(' é</title>'),
    ]);
    const r = run(DEFAULT_EXTRACTION, body);
    expect(r.fields['title']).toBe('caf\uFFFD(\uFFFD é');
  });

  it('returns no fields and no links for non-HTML content types', () => {
    const body = Buffer.from('<title>x</title><a href="/a">a</a>');
    for (const type of ['application/json', 'text/plain', 'application/xml', 'text/xml', 'image/png']) {
      expect(run(DEFAULT_EXTRACTION, body, type)).toEqual({ fields: {}, links: [], errors: [] });
    }
    expect(run(DEFAULT_EXTRACTION, body, 'application/xhtml+xml').fields['title']).toBe('x');
    expect(run(DEFAULT_EXTRACTION, body, 'TEXT/HTML; charset=utf-8').fields['title']).toBe('x');
  });
});

describe('CheerioExtractor links', () => {
  const all: ExtractionRules = { fields: {}, follow: [], followAllLinks: { priority: 10 } };

  it('resolves relative links against the page, drops fragments and non-http schemes', () => {
    const r = run(
      all,
      html(
        '<a href="a.html">1</a><a href="../up">2</a><a href="/root?q=1#frag">3</a><a href="//cdn.test/x">4</a>' +
          '<a href="https://other.test/">5</a><a href="javascript:void(0)">j</a><a href="mailto:a@b.c">m</a>' +
          '<a href="tel:+100">t</a><a href="data:text/html,hi">d</a><a href="ftp://f.test/">f</a>' +
          '<a href="#top">top</a><a href="">empty</a><a href="http://[bad">bad</a><a>no href</a>' +
          '<a href=" JavaScript:alert(1)">J</a>',
      ),
    );
    expect(r.links.map((l) => l.url)).toEqual([
      'http://shop.test/dir/a.html',
      'http://shop.test/up',
      'http://shop.test/root?q=1',
      'http://cdn.test/x',
      'https://other.test/',
    ]);
    expect(r.links.every((l) => l.priority === 10 && l.maxDepth === undefined)).toBe(true);
  });

  it('honours <base href>, itself relative to the page', () => {
    const r = run(all, html('<a href="x">x</a><a href="/y">y</a>', '<base href="/other/base/">'));
    expect(r.links.map((l) => l.url)).toEqual(['http://shop.test/other/base/x', 'http://shop.test/y']);
    const abs = run(all, html('<a href="x">x</a>', '<base href="https://cdn.test/b/">'));
    expect(abs.links.map((l) => l.url)).toEqual(['https://cdn.test/b/x']);
  });

  it('applies follow rules with their priority and maxDepth, keeping the lowest priority', () => {
    const rules: ExtractionRules = {
      fields: {},
      follow: [
        { selector: 'a.next', priority: 1, maxDepth: 5 },
        { selector: 'link[rel=alternate]', attr: 'href', priority: 3 },
        { selector: 'img', attr: 'data-src', priority: 2, maxDepth: 1 },
      ],
      followAllLinks: { priority: 10 },
    };
    const r = run(
      rules,
      html(
        '<a href="/a">a</a><a class="next" href="/b">b</a><a href="/b#again">b2</a><img data-src="/c.png">' +
          '<a href="/a">dup</a><a href="/c.png">c</a>',
        '<link rel="alternate" href="/feed">',
      ),
    );
    expect(r.links).toEqual([
      { url: 'http://shop.test/b', priority: 1, maxDepth: 5 },
      { url: 'http://shop.test/feed', priority: 3 },
      { url: 'http://shop.test/c.png', priority: 2, maxDepth: 1 },
      { url: 'http://shop.test/a', priority: 10 },
    ]);
  });

  it('on equal priority keeps the more permissive depth limit', () => {
    const rules: ExtractionRules = {
      fields: {},
      follow: [
        { selector: 'a', priority: 1, maxDepth: 1 },
        { selector: 'a', priority: 1, maxDepth: 4 },
      ],
      followAllLinks: { priority: 1 },
    };
    expect(run(rules, html('<a href="/a">a</a>')).links).toEqual([
      { url: 'http://shop.test/a', priority: 1 },
    ]);
  });

  it('returns no links when there are no follow rules', () => {
    expect(run({ ...noLinks, fields: {} }, html('<a href="/a">a</a>')).links).toEqual([]);
  });

  it('handles a page with 100,000 links, deduped', () => {
    const parts: string[] = [];
    for (let i = 0; i < 100_000; i++) parts.push(`<a href="/p/${i % 50_000}">${i}</a>`);
    // How long it takes is bench/worst-inputs.mjs's figure (links).
    const r = run(all, html(parts.join('\n')));
    expect(r.links).toHaveLength(50_000);
    expect(r.links[0]?.url).toBe('http://shop.test/p/0');
    expect(r.links[49_999]?.url).toBe('http://shop.test/p/49999');
    expect(new Set(r.links.map((l) => l.url)).size).toBe(50_000);
  });
});

describe('parseNumber', () => {
  it.each([
    ['$1,234.50', 1234.5],
    ['12', 12],
    ['-3.25 EUR', -3.25],
    ['.5', 0.5],
    ['1.', 1],
    ['', undefined],
    ['free', undefined],
    ['1-2', undefined],
    ['1.2.3', undefined],
    ['-', undefined],
  ])('%s -> %s', (s, n) => {
    expect(parseNumber(s)).toBe(n);
  });
});
