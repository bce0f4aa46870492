/** The demo shop's content: pages, links, prices by epoch, and their bytes. Pure and deterministic. */
import { hash } from './demo-hash.js';
import type { ProductJson } from './js-shell.js';

export interface Catalogue {
  readonly pages: number;
  readonly seed: number;
  readonly changeRate: number | undefined;
}

const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip'
).split(' ');
const ADJECTIVES = ['Sturdy', 'Compact', 'Deluxe', 'Classic', 'Portable', 'Smart', 'Vintage', 'Eco'];
const NOUNS = ['Kettle', 'Lamp', 'Backpack', 'Chair', 'Headphones', 'Blender', 'Watch', 'Umbrella'];

function words(seed: number, n: number): string {
  const out: string[] = [];
  for (let w = 0; w < n; w++) out.push(WORDS[hash(seed, w) % WORDS.length] ?? 'lorem');
  return out.join(' ');
}

/** ~13 KB of description shared by all pages: rendered once, so serving a page is cheap. */
export function renderFiller(seed: number): Buffer {
  let html = '';
  for (let p = 0; html.length < 13_000; p++) html += `<p class="desc">${words(hash(seed, 7, p), 60)}.</p>\n`;
  return Buffer.from(`<section class="body">\n${html}</section>\n`);
}

function formatPrice(cents: number): string {
  const dollars = Math.floor(cents / 100)
    .toString()
    .replace(/\B(?=(\d{3})+$)/g, ',');
  return `$${dollars}.${String(cents % 100).padStart(2, '0')}`;
}

export function pagePath(i: number): string {
  return i === 0 ? '/' : `/p/${i}`;
}

/** The pages page i links to, in document order (children first; may repeat). */
export function pageLinks(i: number, pages: number, seed: number): number[] {
  const out: number[] = [];
  for (const c of [2 * i + 1, 2 * i + 2]) if (c < pages) out.push(c);
  for (let k = 0; k < 8; k++) out.push(hash(seed, i, k, 1) % pages);
  return out;
}

export function pagePrice(i: number, seed: number, epoch: number): string {
  return formatPrice(100 + (hash(seed, i, epoch, 2) % 250_000));
}

export function productJson(i: number, o: Catalogue, epoch: number): ProductJson {
  const h = hash(o.seed, i, 3);
  return {
    id: i,
    title: `Product ${i}`,
    name: `${ADJECTIVES[h % ADJECTIVES.length]} ${NOUNS[(h >>> 8) % NOUNS.length]}`,
    price: pagePrice(i, o.seed, pageEpoch(i, epoch, o.seed, o.changeRate)),
    related: pageLinks(i, o.pages, o.seed).map(pagePath),
  };
}

export function renderPage(i: number, o: Catalogue, epoch: number, filler: Buffer): Buffer {
  const h = hash(o.seed, i, 3);
  const name = `${ADJECTIVES[h % ADJECTIVES.length]} ${NOUNS[(h >>> 8) % NOUNS.length]}`;
  const up = i === 0 ? '' : ` <a href="${pagePath(Math.floor((i - 1) / 2))}">Up</a>`;
  const related = pageLinks(i, o.pages, o.seed)
    .map((j) => `<li><a href="${pagePath(j)}">Product ${j}</a></li>`)
    .join('\n');
  const head = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Product ${i} — Demo Shop</title>
<meta name="description" content="Product ${i}: ${name}, ${words(h, 12)}.">
<link rel="canonical" href="${pagePath(i)}"></head>
<body><header><nav><a href="/">Home</a>${up}</nav></header>
<main><article id="product-${i}"><h1 class="title">Product ${i}</h1>
<div class="meta"><span class="name">${name}</span> <span class="price">${pagePrice(i, o.seed, epoch)}</span> <span class="sku">SKU-${i}</span></div>
<p class="lead">${words(h, 40)}.</p>
`;
  const tail = `<ul class="related">
${related}
</ul></article></main><footer><p>Demo Shop &copy; crawld — synthetic data, seed ${o.seed}</p></footer></body></html>
`;
  return Buffer.concat([Buffer.from(head), filler, Buffer.from(tail)]);
}

export function renderSitemap(origin: string, pages: number): Buffer {
  const urls: string[] = [];
  for (let i = 0; i < pages; i++) urls.push(`<url><loc>${origin}${pagePath(i)}</loc></url>`);
  return Buffer.from(
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.join('\n')}\n</urlset>\n`,
  );
}

/** Scanned back at most this many epochs for a page's last change (then taken as unchanged). */
const MAX_EPOCH_SCAN = 100_000;

/** The epoch page i last changed at, as of epoch e: its content is that epoch's. */
export function pageEpoch(i: number, e: number, seed: number, changeRate: number | undefined): number {
  if (changeRate === undefined) return e;
  for (let k = e; k > 0 && e - k < MAX_EPOCH_SCAN; k--)
    if (hash(seed, i, k, 5) / 2 ** 32 < changeRate) return k;
  return 0;
}

/** Page index for a request path, or undefined. Rejects '/p/007' so each page has one URL. */
export function pageIndex(path: string, pages: number): number | undefined {
  if (path === '/') return 0;
  const m = /^\/p\/(0|[1-9]\d{0,9})$/.exec(path);
  if (!m) return undefined;
  const i = Number(m[1]);
  return i < pages ? i : undefined;
}
