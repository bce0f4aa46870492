/**
 * `crawld site --js`: a product page is a shell whose script fetches the product's JSON and
 * renders it, as many shops do (docs/browser.md).
 */

export function productApiPath(i: number): string {
  return `/api/p/${i}.json`;
}

export function productApiIndex(path: string, pages: number): number | undefined {
  const m = /^\/api\/p\/(0|[1-9]\d{0,9})\.json$/.exec(path);
  if (!m) return undefined;
  const i = Number(m[1]);
  return i < pages ? i : undefined;
}

export interface ProductJson {
  readonly id: number;
  readonly title: string;
  readonly name: string;
  readonly price: string;
  /** Paths of the pages the rendered page links to, in document order. */
  readonly related: readonly string[];
}

/** The shell: nothing but a placeholder and the script that fills it. */
export function renderShell(i: number): Buffer {
  return Buffer.from(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Demo Shop</title></head>
<body><header><nav><a href="/">Home</a></nav></header>
<div id="app">Loading…</div>
<script>
fetch(${JSON.stringify(productApiPath(i))})
  .then(function (r) { return r.json(); })
  .then(function (p) {
    document.title = p.title + ' — Demo Shop';
    var related = p.related.map(function (href) {
      return '<li><a href="' + href + '">' + href + '</a></li>';
    }).join('');
    document.getElementById('app').innerHTML =
      '<main><article id="product-' + p.id + '"><h1 class="title">' + p.title + '</h1>' +
      '<div class="meta"><span class="name">' + p.name + '</span> <span class="price">' + p.price +
      '</span></div><ul class="related">' + related + '</ul></article></main>';
  });
</script></body></html>
`);
}
