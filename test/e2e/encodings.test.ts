import { join } from 'node:path';
import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { readJsonl, runCli, tempDir } from '../helpers/cli.js';
import { useSite } from '../helpers/engine.js';

interface Page {
  readonly path: string;
  readonly title: string;
  /** Encoding of the bytes sent. */
  readonly encoding: string;
  /** Content-Type header sent. */
  readonly contentType: string;
  /** Inside <head>, before the title. */
  readonly head?: string;
  readonly bom?: readonly number[];
  /** Decoded as (the record's `encoding`). */
  readonly expect: string;
  /** Expected title, when it is not `title` (a page that declares nothing in a legacy encoding). */
  readonly expectTitle?: string;
}

/** Every encoding the issue names, declared each way a site may declare it. */
const PAGES: Page[] = [
  {
    path: '/gbk',
    title: '商品一号 价格',
    encoding: 'gbk',
    contentType: 'text/html; charset=gbk',
    expect: 'gbk',
  },
  {
    path: '/big5',
    title: '商品一號 價格',
    encoding: 'big5',
    contentType: 'text/html',
    head: '<meta charset="big5">',
    expect: 'big5',
  },
  {
    path: '/sjis',
    title: '商品一番 価格',
    encoding: 'shift_jis',
    contentType: 'text/html',
    head: '<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">',
    expect: 'shift_jis',
  },
  {
    path: '/eucjp',
    title: '日本語の商品',
    encoding: 'euc-jp',
    contentType: 'text/html; charset="EUC-JP"',
    expect: 'euc-jp',
  },
  {
    path: '/euckr',
    title: '상품 가격',
    encoding: 'euc-kr',
    contentType: 'text/html',
    head: "<meta charset='euc-kr'>",
    expect: 'euc-kr',
  },
  {
    path: '/cp1251',
    title: 'Товар цена',
    encoding: 'windows-1251',
    contentType: 'text/html; Charset=Windows-1251',
    expect: 'windows-1251',
  },
  {
    path: '/koi8',
    title: 'Товар цена',
    encoding: 'koi8-r',
    contentType: 'text/html',
    head: '<meta http-equiv="content-type" content="text/html;charset=koi8-r">',
    expect: 'koi8-r',
  },
  // Undeclared and not valid UTF-8: windows-1252, as browsers default.
  {
    path: '/cp1252',
    title: 'Café €12,99',
    encoding: 'windows-1252',
    contentType: 'text/html',
    expect: 'windows-1252',
  },
  // latin1 is windows-1252: the euro sign at 0x80 survives.
  {
    path: '/latin1',
    title: 'Prix €15',
    encoding: 'windows-1252',
    contentType: 'text/html; charset=iso-8859-1',
    expect: 'windows-1252',
  },
  {
    path: '/utf16',
    title: '商品 café',
    encoding: 'utf-16le',
    contentType: 'text/html',
    bom: [0xff, 0xfe],
    expect: 'utf-16le',
  },
  // A BOM beats the header.
  {
    path: '/bom8',
    title: '商品 café',
    encoding: 'utf-8',
    contentType: 'text/html; charset=windows-1252',
    bom: [0xef, 0xbb, 0xbf],
    expect: 'utf-8',
  },
  // The header beats a meta that contradicts it.
  {
    path: '/contradict',
    title: '商品二号',
    encoding: 'gbk',
    contentType: 'text/html; charset=gbk',
    head: '<meta charset="windows-1251">',
    expect: 'gbk',
  },
  // An unknown label: the default decides (valid UTF-8 here), and the page still has its title.
  {
    path: '/unknown',
    title: 'Produkt größe',
    encoding: 'utf-8',
    contentType: 'text/html; charset=x-unknown-9',
    expect: 'utf-8',
  },
  { path: '/utf8', title: '普通 UTF-8 page', encoding: 'utf-8', contentType: 'text/html', expect: 'utf-8' },
];

function body(p: Page, links = ''): Buffer {
  const html = `<!doctype html><html><head>${p.head ?? ''}<title>${p.title}</title></head><body>${links}</body></html>`;
  return Buffer.concat([Buffer.from(p.bom ?? []), iconv.encode(html, p.encoding)]);
}

describe('pages in every encoding, through `crawld crawl --once` as a user runs it', () => {
  const site = useSite((req, res) => {
    const page = PAGES.find((p) => p.path === req.url);
    if (req.url === '/') {
      const links = PAGES.map((p) => `<a href="${p.path}">${p.path}</a>`).join('');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<title>index</title>${links}`);
    } else if (page?.path === '/gbk') {
      // The query of a link on a GBK page is requested in GBK.
      res
        .writeHead(200, { 'content-type': page.contentType })
        .end(body(page, '<a href="/s?q=价格">search</a>'));
    } else if (page) {
      res.writeHead(200, { 'content-type': page.contentType }).end(body(page));
    } else if (req.url?.startsWith('/s?')) {
      res
        .writeHead(200, { 'content-type': 'text/html; charset=gbk' })
        .end(iconv.encode('<title>搜索</title>', 'gbk'));
    } else {
      res.writeHead(404).end();
    }
  });

  it('decodes each page as a browser would, records its encoding, and requests the GBK query in GBK', async () => {
    const dir = tempDir();
    const r = await runCli([
      'crawl',
      `${site.origin}/`,
      '--once',
      '--data-dir',
      dir,
      '--allow-private-networks',
    ]);
    expect(r.code, r.stderr).toBe(0);
    const records = readJsonl(join(dir, 'results.jsonl'));
    const byPath = new Map(records.map((rec) => [new URL(rec.url as string).pathname, rec]));
    for (const p of PAGES) {
      const rec = byPath.get(p.path);
      expect(rec, p.path).toBeDefined();
      expect((rec!.fields as { title: string }).title, p.path).toBe(p.expectTitle ?? p.title);
      expect(rec!.encoding, p.path).toBe(p.expect);
    }
    // The browser's request for the link: path UTF-8, query in the page's encoding.
    expect(site.hits).toContain('/s?q=%BC%DB%B8%F1');
    const search = records.find((rec) => (rec.url as string).includes('/s?'));
    expect((search?.fields as { title: string } | undefined)?.title).toBe('搜索');
  });
});
