import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheerioExtractor } from '../../src/adapters/parse/cheerio-extractor.js';
import { StreamingExtractor } from '../../src/adapters/parse/streaming-extractor.js';
import { HtmlTooDeepError } from '../../src/core/errors.js';
import { MAX_HTML_DEPTH } from '../../src/core/html-depth.js';
import { DEFAULT_EXTRACTION, type ExtractionRules, type FieldRule } from '../../src/core/rules.js';
import { type DemoSite, startDemoSite } from '../../src/demo/site.js';

// The streaming extractor must give exactly what the cheerio (DOM) extractor gives whenever it
// accepts the rules: the same fields, errors and links in the same order.

const PAGE = 'http://shop.test/dir/page.html';

const dom = (rules: ExtractionRules) => new CheerioExtractor(rules, { streaming: 'never' });

function both(rules: ExtractionRules, body: string, url = PAGE, contentType = 'text/html') {
  const input = { url, contentType, body: Buffer.from(body) };
  expect(StreamingExtractor.supports(rules)).toBe(true);
  return { stream: new StreamingExtractor(rules).extract(input), dom: dom(rules).extract(input) };
}

function expectSame(rules: ExtractionRules, body: string, url = PAGE) {
  const r = both(rules, body, url);
  expect(r.stream).toEqual(r.dom);
  return r.stream;
}

const BENCH_RULES: ExtractionRules = {
  fields: { title: { selector: 'h1.title' }, price: { selector: 'span.price', type: 'number' } },
  follow: [],
  followAllLinks: { priority: 10 },
};

describe('StreamingExtractor on the demo site', () => {
  let site: DemoSite;
  beforeAll(async () => {
    site = await startDemoSite({ port: 0, host: '127.0.0.1', pages: 500 });
  });
  afterAll(() => site.close());

  it('matches the DOM extractor on every page, for the bench rules and the defaults', async () => {
    const richer: ExtractionRules = {
      fields: {
        name: { selector: 'span.name' },
        sku: { selector: '.sku', regex: 'SKU-(\\d+)', type: 'number', required: true },
        paragraphs: { selector: 'p.desc', all: true },
        canonical: { selector: 'link[rel=canonical]', attr: 'href' },
        article: { selector: 'article', attr: 'id' },
        missing: { selector: '#nope', required: true },
      },
      follow: [{ selector: 'link[rel=canonical]', priority: 1 }],
      followAllLinks: { priority: 5 },
    };
    let links = 0;
    for (let i = 0; i < 500; i += 7) {
      const url = `${site.url}${i === 0 ? '/' : `/p/${i}`}`;
      const res = await fetch(url);
      const body = await res.text();
      for (const rules of [BENCH_RULES, DEFAULT_EXTRACTION, richer]) {
        const out = expectSame(rules, body, url);
        links += out.links.length;
      }
      expect(expectSame(BENCH_RULES, body, url).fields['title']).toBe(`Product ${i}`);
    }
    expect(links).toBeGreaterThan(1000);
  });
});

describe('StreamingExtractor on tricky HTML', () => {
  const all: ExtractionRules = { fields: {}, follow: [], followAllLinks: { priority: 10 } };

  it('follows <a href>, <area href>, <iframe src> and <frame src> by default; tags: [a] only anchors', () => {
    const body =
      '<img usemap="#m"><map name="m"><area shape="rect" coords="0,0,9,9" href="/mapped"></map>' +
      '<iframe src="/framed"></iframe><iframe src="about:blank"></iframe><iframe srcdoc="<p>x</p>"></iframe>' +
      '<frameset><frame src="frames/left.html"><frame src="javascript:0"></frameset><a href="/plain">p</a>';
    const doc = `<html><head><base href="/b/"></head><body>${body}</body></html>`;
    const out = expectSame(all, doc);
    expect(out.links.map((l) => l.url).sort()).toEqual(
      [
        'http://shop.test/b/frames/left.html',
        'http://shop.test/framed',
        'http://shop.test/mapped',
        'http://shop.test/plain',
      ].sort(),
    );
    const anchors = expectSame({ ...all, followAllLinks: { priority: 10, tags: ['a'] } }, doc);
    expect(anchors.links.map((l) => l.url)).toEqual(['http://shop.test/plain']);
  });

  it('resolves relative links and honours <base href> wherever it is', () => {
    const body =
      '<a href="a.html">1</a><a href="../up">2</a><a href=" /root?q=1#frag ">3</a><a href="//cdn.test/x">4</a>' +
      '<a href="#top">t</a><a href="">e</a><a href="javascript:void(0)">j</a><a href="mailto:a@b.c">m</a>' +
      '<a href="http://[bad">bad</a><a>none</a><a href="https://other.test/">5</a>';
    expectSame(all, `<html><head></head><body>${body}</body></html>`);
    const out = expectSame(all, `<html><head><base href="/other/base/"></head><body>${body}</body></html>`);
    expect(out.links[0]?.url).toBe('http://shop.test/other/base/a.html');
    // A <base> after the links, a second <base>, one without href, one with a bad href.
    expectSame(
      all,
      `<body>${body}<base target="_top"><base href="https://cdn.test/b/"><base href="/z/"></body>`,
    );
    expectSame(all, `<body>${body}<base href="http://[bad"></body>`);
    expectSame(all, '<base href="x/"><a href="y">y</a>', 'http://shop.test/dir/');
    expect(both(all, '<a href="/a">a</a>', 'not a url').stream.links).toEqual([]);
  });

  it('decodes entities in attributes and text, and collapses whitespace', () => {
    const rules: ExtractionRules = {
      fields: {
        title: { selector: 'title' },
        h: { selector: 'h1' },
        alt: { selector: 'img', attr: 'alt' },
        pre: { selector: 'pre' },
      },
      follow: [],
      followAllLinks: { priority: 1 },
    };
    const out = expectSame(
      rules,
      '<title> Caf&eacute; &amp; Bar &lt;b&gt;</title><h1>\n  A&nbsp;B\t&#x43;&#68; &unknown; &amp\n</h1>' +
        '<img alt="&quot;x&quot; &amp; y"><pre>  keep\n\n  lines  </pre>' +
        '<a href="/s?a=1&amp;b=2&copy=3">q</a><a href="/caf&eacute;">c</a>',
    );
    expect(out.fields['title']).toBe('Café & Bar <b>');
    // In an attribute, a legacy entity followed by '=' stays as written (HTML spec).
    expect(out.links.map((l) => l.url)).toEqual([
      'http://shop.test/s?a=1&b=2&copy=3',
      'http://shop.test/caf%C3%A9',
    ]);
  });

  it('follows rel=nofollow links like the DOM extractor (no rel filtering in either)', () => {
    const out = expectSame(all, '<a rel="nofollow" href="/n">n</a><a rel="NoFollow ugc" href="/u">u</a>');
    expect(out.links).toHaveLength(2);
  });

  it('tracks element extents like the DOM builder: implied closes, nesting, raw text, comments', () => {
    const rules: ExtractionRules = {
      fields: {
        firstP: { selector: 'p' },
        ps: { selector: 'p', all: true },
        lis: { selector: 'li', all: true },
        prices: { selector: '.price', all: true, type: 'number' },
        outer: { selector: 'div.box' },
        script: { selector: 'script' },
        style: { selector: 'style' },
        title: { selector: 'title' },
        td: { selector: 'td', all: true },
        opt: { selector: 'option', all: true },
        area: { selector: 'textarea' },
      },
      follow: [{ selector: 'a.x', priority: 1 }],
      followAllLinks: { priority: 3 },
    };
    expectSame(
      rules,
      '<!DOCTYPE html><html><head><title>T <i>x</i> &amp; y</title><style>p { color: red } </p></style>' +
        '<script>var s = "<a href=\'/fake\'>f</a></div>";</script></head><body>' +
        '<p>one<p>two <b>bold<p>three</b> four<div class="box">box <div class="box">inner</div> tail' +
        '<ul><li>a<li>b <ul><li>c</ul><li>d</ul><!-- <a href="/comment">c</a> --><![CDATA[ <a href="/cdata">x</a> ]]>' +
        '<table><tr><td>1<td>2</tr><tr><td>3</table><select><option>o1<option>o2</select>' +
        '<span class="price">$5<span class="price">$7</span></span><div class="price">$1,000</div></td>' +
        '<textarea> <a href="/ta">no</a> </textarea><br/><img src="x"><hr><a class="x" href="/x">x' +
        '</div></div></p></body></html><a href="/after">after</a>',
    );
  });

  it('matches selectors like css-select: case, classes, ids, attribute values, lists', () => {
    const body =
      '<DIV CLASS="a  b\tc" ID="Main" Data-X="1" data-y=""><A HREF="/upper" REL="ALTERNATE">u</A>' +
      '<span class="A">cap</span><span class="a-b">dash</span><span class="ab">ab</span>' +
      '<input type="TEXT" name="q" value="v"><input type="hidden" name="h">' +
      '<link rel="Alternate" href="/alt"><link rel="alternate stylesheet" href="/both">' +
      '<meta name="Description" content="upper"><meta name="description" content="lower">' +
      '<p id="main">lower id</p><p title="a,b" id="t" lang="EN-us">p</p>' +
      '<a href="/dup" href="/second">dup</a><a data-href="/data">d</a></DIV>';
    const field = (selector: string, extra: Partial<FieldRule> = {}): FieldRule => ({
      selector,
      all: true,
      ...extra,
    });
    const rules: ExtractionRules = {
      fields: {
        classes: field('div.a.b.c', { attr: 'id' }),
        cap: field('.A'),
        dash: field('span.a-b'),
        notA: field('span.a'),
        id: field('#Main', { attr: 'data-x' }),
        idLower: field('#main'),
        idTag: field('p#t'),
        upperSel: field('DIV[DATA-X]', { attr: 'data-x' }),
        empty: field('[data-y]', { attr: 'data-y', required: true }),
        typeText: field('input[type=text]', { attr: 'name' }),
        typeHidden: field('input[type="hidden"]', { attr: 'name' }),
        metaDesc: field('meta[name="description"]', { attr: 'content' }),
        metaDescQ: field("meta[name='Description']", { attr: 'content' }),
        lang: field('p[lang=en-US]'),
        list: field('span.ab, p#t, #main'),
        star: field('*[title]', { attr: 'title' }),
        any: field('[id]', { attr: 'id' }),
      },
      follow: [
        { selector: 'link[rel=alternate]', attr: 'href', priority: 2 },
        { selector: 'a[data-href]', attr: 'data-href', priority: 4, maxDepth: 2 },
        { selector: 'a[rel=alternate]', priority: 1 },
      ],
      followAllLinks: { priority: 9 },
    };
    const out = expectSame(rules, body);
    expect(out.fields['typeText']).toEqual(['q']);
    expect(out.links.map((l) => l.url)).toContain('http://shop.test/dup');
  });

  it('reports the same nulls and errors (required, regex, number, first vs all)', () => {
    const rules: ExtractionRules = {
      fields: {
        opt: { selector: '.nope' },
        req: { selector: '.nope', required: true },
        reqAll: { selector: '.nope', all: true, required: true },
        emptyText: { selector: 'b.empty', required: true },
        sku: { selector: '.sku', regex: 'SKU-(\\d+)' },
        skus: { selector: '.sku', regex: 'SKU-(\\d+)', all: true, type: 'number' },
        price: { selector: '.price', type: 'number' },
        whole: { selector: '.sku', regex: '\\d+' },
      },
      follow: [],
      followAllLinks: false,
    };
    expectSame(
      rules,
      '<b class="empty">  \n </b><span class="sku">none</span><span class="sku">SKU-7</span>' +
        '<span class="price">call us</span><span class="price">$3</span>',
    );
  });

  it('decodes invalid UTF-8 and ignores non-HTML bodies the same way', () => {
    const body = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('<title>caf'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from(' é</title><a href="/\u00e9">x</a>'),
    ]);
    for (const contentType of ['text/html', 'application/json', 'TEXT/HTML; charset=utf-8', 'text/plain']) {
      const input = { url: PAGE, contentType, body };
      const rules = { ...DEFAULT_EXTRACTION, followAllLinks: { priority: 1 } };
      expect(new StreamingExtractor(rules).extract(input)).toEqual(dom(rules).extract(input));
    }
  });

  it('matches on random documents and random simple selectors', () => {
    let seed = 42;
    const rnd = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 8) % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)] as T;
    const tags = ['div', 'p', 'span', 'a', 'li', 'ul', 'b', 'td', 'tr', 'table', 'h1', 'img', 'br', 'option'];
    const classes = ['x', 'y', 'x y', 'Y', ''];
    const piece = (): string => {
      switch (rnd(7)) {
        case 0:
          return pick([' text ', 'a &amp; b', '&lt;i&gt;', '\n\t', '$1,234.5', 'SKU-9']);
        case 1:
          return `</${pick(tags)}>`;
        case 2:
          return `<!-- ${pick(tags)} -->`;
        default: {
          const t = pick(tags);
          const cls = pick(classes);
          const attrs = [
            cls ? ` class="${cls}"` : '',
            rnd(3) === 0 ? ` id="${pick(['i1', 'i2'])}"` : '',
            rnd(2) === 0 ? ` href="${pick(['/a', 'b/c', '#f', '/a#f', 'http://o.test/', ''])}"` : '',
            rnd(4) === 0 ? ` data-v="${pick(['1', '2', ''])}"` : '',
          ].join('');
          return `<${t}${attrs}>`;
        }
      }
    };
    const selector = () => {
      const t = pick(['', '', ...tags, '*']);
      const c = pick(['', '', '.x', '.y', '.x.y', '.Y']);
      const i = pick(['', '', '', '#i1']);
      const a = pick(['', '', '[href]', '[data-v]', '[data-v="1"]', '[data-v=2]']);
      const s = `${t}${c}${i}${a}` || '*';
      return rnd(5) === 0 ? `${s}, ${pick(tags)}.x` : s;
    };
    for (let doc = 0; doc < 300; doc++) {
      const body = Array.from({ length: 40 + rnd(80) }, piece).join('');
      const fields: Record<string, FieldRule> = {};
      for (let f = 0; f < 4; f++) {
        fields[`f${f}`] = {
          selector: selector(),
          all: rnd(2) === 0,
          ...(rnd(3) === 0 ? { attr: pick(['href', 'class', 'data-v', 'id']) } : {}),
          ...(rnd(4) === 0 ? { type: 'number' as const } : {}),
          ...(rnd(4) === 0 ? { required: true } : {}),
        };
      }
      const rules: ExtractionRules = {
        fields,
        follow: [
          { selector: selector(), priority: rnd(5) },
          { selector: selector(), attr: pick(['href', 'data-v']), priority: rnd(5), maxDepth: rnd(3) },
        ],
        followAllLinks: rnd(2) === 0 ? { priority: rnd(5) } : false,
      };
      expectSame(rules, body);
    }
  });
});

describe('StreamingExtractor selection', () => {
  const withField = (selector: string, attr?: string): ExtractionRules => ({
    fields: { f: attr === undefined ? { selector } : { selector, attr } },
    follow: [],
    followAllLinks: { priority: 1 },
  });

  it('accepts simple selectors and refuses what needs the tree', () => {
    for (const s of [
      'h1',
      'h1.title',
      '#id',
      '.a.b',
      '[href]',
      'a[rel=next]',
      'meta[name="d"]',
      'p, li.x',
      '*',
    ]) {
      expect(StreamingExtractor.supports(withField(s)), s).toBe(true);
      expect(new CheerioExtractor(withField(s)).streaming, s).toBe(true);
    }
    for (const s of [
      'div a',
      'ul > li',
      'h1 + p',
      'a:first-child',
      'a:not(.x)',
      '[href^=http]',
      '[class~=x]',
      'a[title="a,b"]',
      '.a\\:b',
      'svg|rect',
    ]) {
      expect(StreamingExtractor.supports(withField(s)), s).toBe(false);
    }
    // cheerio's attr() answers boolean attributes and `value` specially: leave those to it.
    expect(StreamingExtractor.supports(withField('input', 'checked'))).toBe(false);
    expect(StreamingExtractor.supports(withField('option', 'value'))).toBe(false);
    const follow: ExtractionRules = {
      fields: {},
      follow: [{ selector: 'nav a', priority: 1 }],
      followAllLinks: false,
    };
    expect(new CheerioExtractor(follow).streaming).toBe(false);
    expect(new CheerioExtractor(BENCH_RULES, { streaming: 'never' }).streaming).toBe(false);
    expect(new CheerioExtractor(DEFAULT_EXTRACTION).streaming).toBe(true);
  });

  it('falls back to the DOM for a complex selector and still extracts', () => {
    const rules: ExtractionRules = {
      fields: { lead: { selector: 'article > p.lead' } },
      follow: [{ selector: 'nav a', priority: 1 }],
      followAllLinks: false,
    };
    const out = new CheerioExtractor(rules).extract({
      url: PAGE,
      contentType: 'text/html',
      body: Buffer.from(
        '<nav><a href="/n">n</a></nav><a href="/x">x</a><article><p class="lead">L</p></article>',
      ),
    });
    expect(out).toEqual({
      fields: { lead: 'L' },
      links: [{ url: 'http://shop.test/n', priority: 1 }],
      errors: [],
      encoding: 'utf-8',
    });
  });
});

describe('the depth guard, on both paths', () => {
  const nested = (n: number) => `<html><body>${'<div>'.repeat(n)}<h1 class="title">deep</h1></body></html>`;
  const input = (body: string) => ({ url: PAGE, contentType: 'text/html', body: Buffer.from(body) });

  it('refuses a page nested past MAX_HTML_DEPTH with HtmlTooDeepError', () => {
    // 200 000 levels: minutes of parsing without the guard, past the test's timeout (30 s);
    // the time with it is bench/worst-inputs.mjs's figure (depth).
    const body = nested(200_000);
    expect(() => new StreamingExtractor(BENCH_RULES).extract(input(body))).toThrow(HtmlTooDeepError);
    expect(() => dom(BENCH_RULES).extract(input(body))).toThrow(HtmlTooDeepError);
  });

  it('extracts a page just under the limit the same way on both paths', () => {
    // html and body are two levels, h1 one more.
    const r = expectSame(BENCH_RULES, nested(MAX_HTML_DEPTH - 3));
    expect(r.fields.title).toBe('deep');
    const tooDeep = nested(MAX_HTML_DEPTH - 2);
    expect(() => new StreamingExtractor(BENCH_RULES).extract(input(tooDeep))).toThrow(HtmlTooDeepError);
    expect(() => dom(BENCH_RULES).extract(input(tooDeep))).toThrow(HtmlTooDeepError);
  });
});
