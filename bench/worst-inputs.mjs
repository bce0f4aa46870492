#!/usr/bin/env node
// The worst inputs the unit tests feed the hot paths, timed (tests assert what happens to them,
// never how fast: test/unit/no-timing-assertions.test.ts):
//   npm run build && node bench/worst-inputs.mjs [--runs 5]
//
// - scope: a link's host checked against a job of 20,000 seed hosts, per link, and the ratio
//   to a job of 1 host (compiled into Map look-ups, src/core/host-patterns.ts: ~1; a scan of
//   every pattern would be thousands);
// - links: a page of 100,000 links (50,000 distinct) through the DOM extractor, in ms;
// - depth: a page nested 200,000 levels deep refused by both extractors' depth guard, in ms
//   (minutes without the guard).
// Prints min / median / max of --runs runs of each, and a JSON line.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({ options: { runs: { type: 'string', default: '5' } } });
const runs = Number(opt.runs);
const dist = (p) => join(resolve(import.meta.dirname, '..'), 'dist/src', p);
if (!existsSync(dist('core/url.js'))) {
  console.error('dist/ missing: run `npm run build` first');
  process.exit(2);
}
const { inScope } = await import(dist('core/url.js'));
const { CheerioExtractor } = await import(dist('adapters/parse/cheerio-extractor.js'));
const { StreamingExtractor } = await import(dist('adapters/parse/streaming-extractor.js'));
const { DEFAULT_EXTRACTION } = await import(dist('core/rules.js'));

const scope = (hosts) => ({ hosts, include: [], exclude: [], maxDepth: 10 });
const LINKS = 20_000;

/** ns per inScope() of a link whose host is one of `n` seed hosts. */
function scopeNs(n) {
  const s = scope(Array.from({ length: n }, (_, i) => `127.0.0.1:${10_000 + i}`));
  inScope('http://127.0.0.1:10000/p/1', 1, s); // compiles the patterns
  const t0 = process.hrtime.bigint();
  let ok = 0;
  for (let i = 0; i < LINKS; i++) if (inScope(`http://127.0.0.1:${10_000 + (i % n)}/p/1`, 1, s).ok) ok++;
  if (ok !== LINKS) throw new Error(`scope: ${ok} of ${LINKS} in scope`);
  return Number(process.hrtime.bigint() - t0) / LINKS;
}

function linksMs() {
  const parts = [];
  for (let i = 0; i < 100_000; i++) parts.push(`<a href="/p/${i % 50_000}">${i}</a>`);
  const body = Buffer.from(`<html><body>${parts.join('\n')}</body></html>`);
  const rules = { ...DEFAULT_EXTRACTION, followAllLinks: { priority: 0 } };
  const t0 = performance.now();
  const r = new CheerioExtractor(rules, { streaming: 'never' }).extract({
    url: 'http://shop.test/',
    contentType: 'text/html',
    body,
  });
  const ms = performance.now() - t0;
  if (r.links.length !== 50_000) throw new Error(`links: ${r.links.length}, expected 50,000`);
  return ms;
}

function depthMs() {
  const body = Buffer.from(`<html><body>${'<div>'.repeat(200_000)}<h1>deep</h1></body></html>`);
  const input = { url: 'http://shop.test/', contentType: 'text/html', body };
  const t0 = performance.now();
  for (const x of [
    new StreamingExtractor(DEFAULT_EXTRACTION),
    new CheerioExtractor(DEFAULT_EXTRACTION, { streaming: 'never' }),
  ]) {
    try {
      x.extract(input);
      throw new Error('depth: the page was not refused');
    } catch (err) {
      if (err.name !== 'HtmlTooDeepError') throw err;
    }
  }
  return performance.now() - t0;
}

const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { min: s[0], median: s[Math.floor(s.length / 2)], max: s.at(-1) };
};
const out = { scopeNs1: [], scopeNs20k: [], scopeRatio: [], linksMs: [], depthMs: [] };
for (let r = 0; r < runs; r++) {
  const one = scopeNs(1);
  const many = scopeNs(LINKS);
  out.scopeNs1.push(one);
  out.scopeNs20k.push(many);
  out.scopeRatio.push(many / one);
  out.linksMs.push(linksMs());
  out.depthMs.push(depthMs());
}
const f = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(0));
for (const [name, xs] of Object.entries(out)) {
  const { min, median, max } = stats(xs);
  console.log(`${name.padEnd(12)} min ${f(min)}  median ${f(median)}  max ${f(max)}`);
}
console.log(JSON.stringify(Object.fromEntries(Object.entries(out).map(([k, v]) => [k, stats(v)]))));
