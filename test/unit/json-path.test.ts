import { describe, expect, it } from 'vitest';
import { JsonExtractor } from '../../src/adapters/parse/json-extractor.js';
import { evaluate, JsonPathError, parseJsonPath, select } from '../../src/adapters/parse/json-path.js';
import { defaultConfig } from '../../src/config/config.js';
import { compileExtractor, compileRequest } from '../../src/daemon/job-request.js';

const doc = {
  data: {
    items: [
      { id: 1, name: 'a', tags: ['x', 'y'] },
      { id: 2, name: 'b', tags: [] },
    ],
  },
  meta: { 'next-cursor': 'c2', total: '1,234' },
  next: null,
};

describe('parseJsonPath / select', () => {
  it.each([
    ['$.data.items[*].id', [1, 2]],
    ['data.items[0].name', 'a'],
    ['$.data.items[-1].name', 'b'],
    ["$.meta['next-cursor']", 'c2'],
    ['$["meta"]["next-cursor"]', 'c2'],
    ['$.data.items[*].tags[*]', ['x', 'y']],
    ['$.meta.*', ['c2', '1,234']],
    ['$.data.items[5].name', undefined],
    ['$.missing.deeper', undefined],
    ['$.data.items[*].missing', []],
    ['$.next', null],
    ['items', undefined],
  ])('%s', (path, expected) => {
    expect(select(parseJsonPath(path), doc)).toEqual(expected);
  });

  it('$ alone is the document', () => {
    expect(evaluate(parseJsonPath('$'), doc)).toEqual([doc]);
  });

  it('only wildcard paths are multi', () => {
    expect(parseJsonPath('$.a[0].b').multi).toBe(false);
    expect(parseJsonPath('$.a[*].b').multi).toBe(true);
    expect(parseJsonPath('$.a.*').multi).toBe(true);
  });

  it.each(['', '$.', '$..a', '$[abc]', "$['open", '$.a[1', '$ a', '$.a.[0]'])('refuses %j', (bad) => {
    expect(() => parseJsonPath(bad)).toThrow(JsonPathError);
  });

  it('a member lookup never reads inherited properties', () => {
    expect(select(parseJsonPath('$.constructor'), {})).toBeUndefined();
    expect(select(parseJsonPath('$.length'), [1, 2])).toBeUndefined();
  });
});

function extract(ex: JsonExtractor, body: unknown, url = 'http://api.test/v1/items?page=1') {
  return ex.extract({ url, contentType: 'application/json', body: Buffer.from(JSON.stringify(body)) });
}

describe('JsonExtractor', () => {
  it('extracts fields with types and reports missing required ones', () => {
    const ex = new JsonExtractor({
      fields: {
        ids: '$.data.items[*].id',
        first: { path: '$.data.items[0].name' },
        total: { path: '$.meta.total', type: 'number' },
        idText: { path: '$.data.items[0].id', type: 'string' },
        absent: { path: '$.nope', required: true },
      },
    });
    const r = extract(ex, doc);
    expect(r.fields).toEqual({ ids: [1, 2], first: 'a', total: 1234, idText: '1' });
    expect(r.errors).toEqual(['absent: no value at $.nope']);
    expect(r.items).toBeUndefined();
  });

  it('makes one record per item, fields relative to the item', () => {
    const ex = new JsonExtractor({ items: '$.data.items', fields: { id: '$.id', tag: 'tags[0]' } });
    const r = extract(ex, doc);
    expect(r.items).toEqual([{ id: 1, tag: 'x' }, { id: 2 }]);
    expect(r.fields).toEqual({});
  });

  it('keeps object items whole without fields; wildcard items paths work too', () => {
    expect(extract(new JsonExtractor({ items: '$.data.items' }), doc).items).toEqual(doc.data.items);
    expect(extract(new JsonExtractor({ items: '$.data.items[*].name' }), doc).items).toEqual([
      { value: 'a' },
      { value: 'b' },
    ]);
  });

  it('follows next links and cursor templates, resolved against the page', () => {
    const ex = new JsonExtractor({
      follow: [
        { path: '$.links.next', priority: 3 },
        { url: '/v1/items?cursor={$.meta.cursor}&n={$.meta.n}', priority: 5, maxDepth: 9 },
      ],
    });
    const r = extract(ex, { links: { next: 'page2' }, meta: { cursor: 'a b&c', n: 7 } });
    expect(r.links).toEqual([
      { url: 'http://api.test/v1/page2', priority: 3 },
      { url: 'http://api.test/v1/items?cursor=a%20b%26c&n=7', priority: 5, maxDepth: 9 },
    ]);
  });

  it('a cursor with no value (last page) yields no link', () => {
    const ex = new JsonExtractor({ follow: [{ url: '?cursor={$.cursor}', priority: 0 }] });
    for (const body of [{ cursor: null }, { cursor: '' }, {}]) expect(extract(ex, body).links).toEqual([]);
  });

  it('an invalid body is an extraction error, not an exception', () => {
    const ex = new JsonExtractor({ fields: { a: '$.a' } });
    const r = ex.extract({
      url: 'http://x.test/',
      contentType: 'application/json',
      body: Buffer.from('{oops'),
    });
    expect(r.fields).toEqual({});
    expect(r.errors[0]).toMatch(/^invalid JSON/);
  });

  it('a bad path fails at construction (config time)', () => {
    expect(() => new JsonExtractor({ fields: { a: '$[x]' } })).toThrow(JsonPathError);
  });
});

describe('job request and extractor compilation', () => {
  it('merges cookies into a Cookie header and sends object bodies as JSON', () => {
    const cfg = defaultConfig({
      jobs: [
        {
          id: 'api',
          seeds: ['http://api.test/'],
          request: {
            method: 'POST',
            headers: { Authorization: 'Bearer s3cret' },
            cookies: { session: 'abc', lang: 'en' },
            body: { q: 1 },
          },
        },
      ],
    });
    expect(compileRequest(cfg.jobs[0]!.request)).toEqual({
      method: 'POST',
      headers: {
        authorization: 'Bearer s3cret',
        cookie: 'session=abc; lang=en',
        'content-type': 'application/json',
      },
      body: '{"q":1}',
    });
  });

  it('refuses header values with line breaks and json follow rules with both path and url', () => {
    expect(() =>
      defaultConfig({
        jobs: [{ id: 'a', seeds: ['http://a.test/'], request: { headers: { x: 'a\r\nb: c' } } }],
      }),
    ).toThrow(/request\.headers\.x: must be one line/);
    expect(() =>
      defaultConfig({
        jobs: [
          {
            id: 'a',
            seeds: ['http://a.test/'],
            extract: { type: 'json', follow: [{ path: '$.n', url: 'x' }] },
          },
        ],
      }),
    ).toThrow(/exactly one of path or url/);
  });

  it('html jobs send JSON responses to the JSON extractor; json jobs parse any content type', () => {
    const html = compileExtractor(undefined);
    const body = Buffer.from('{"title":"t"}');
    expect(html.extract({ url: 'http://a.test/', contentType: 'application/json', body }).errors).toEqual([]);
    expect(
      html.extract({ url: 'http://a.test/', contentType: 'text/html', body: Buffer.from('<title>T</title>') })
        .fields.title,
    ).toBe('T');
    const cfg = defaultConfig({
      jobs: [{ id: 'a', seeds: ['http://a.test/'], extract: { type: 'json', fields: { t: '$.title' } } }],
    });
    const json = compileExtractor(cfg.jobs[0]!.extract);
    expect(json.extract({ url: 'http://a.test/', contentType: 'text/plain', body }).fields).toEqual({
      t: 't',
    });
  });
});
