// How a rendered page's fields and links are best read: the DOM as HTML through
// crawld's own extractor, or the selectors evaluated in the page. On the JS demo shop, each
// product page is rendered once (load, then span.price), and on that same rendered page, in a
// rotating order, three ways give the job's record:
//   content  page.content() (Playwright's) + crawld's extractor in Node
//   outer    the DOM read in the page's own world (doctype + outerHTML, what crawld does) +
//            crawld's extractor in Node
//   in-page  the field and link selectors run in the page (querySelectorAll), raw values
//            returned, then the same value rules in Node (field-values.ts: trim, number,
//            link resolution)
// Each record is checked equal to the first way's; the times are medians per page (ms), with
// the render time for scale.
//
//   npm run build && node bench/browser-extract.mjs [--pages 60] [--chromium PATH]
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { startDemoSite } from './demo-site.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');
const dist = (p) => join(root, 'dist/src', p);
if (!existsSync(dist('cli.js'))) {
  console.error('dist/ missing: run `npm run build` first');
  process.exit(2);
}
const { CheerioExtractor } = await import(dist('adapters/parse/cheerio-extractor.js'));
const { compileField, fieldValue, linkSources, collectLinks, documentBase } = await import(
  dist('adapters/parse/field-values.js')
);

const { values: opt } = parseArgs({
  options: { pages: { type: 'string', default: '60' }, chromium: { type: 'string' } },
});
const pages = Number(opt.pages);
const executablePath =
  opt.chromium ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? 'chromium';

// The rules of bench/browser.mjs's job.
const rules = {
  fields: {
    title: { selector: 'h1.title' },
    price: { selector: 'span.price', type: 'number' },
  },
  follow: [],
  followAllLinks: { priority: 10 },
};
const extractor = new CheerioExtractor(rules);
const fields = Object.entries(rules.fields).map(([name, rule]) => compileField(name, rule));
const sources = linkSources(rules);

const READ_DOM = `(() => {
  const d = document.doctype;
  return (d ? '<!DOCTYPE ' + d.name + '>' : '') + document.documentElement.outerHTML;
})()`;

/** In the page: raw values of every field selector and link source, and <base href>. */
const IN_PAGE = `((q) => {
  const fields = q.fields.map((f) => {
    const els = f.all ? [...document.querySelectorAll(f.selector)] : [document.querySelector(f.selector)].filter(Boolean);
    return els.map((e) => (f.attr ? (e.getAttribute(f.attr) ?? undefined) : e.textContent));
  });
  const links = q.links.map((s) => [...document.querySelectorAll(s.selector)].map((e) => e.getAttribute(s.attr)).filter((v) => v !== null));
  const base = document.querySelector('base[href]');
  return { fields, links, base: base ? base.getAttribute('href') : undefined };
})`;
const query = JSON.stringify({
  fields: fields.map((f) => ({ selector: f.rule.selector, attr: f.rule.attr, all: f.rule.all ?? false })),
  links: sources.map((s) => ({ selector: s.selector, attr: s.attr })),
});

function viaHtml(url, html) {
  const x = extractor.extract({ url, contentType: 'text/html', body: Buffer.from(html, 'utf8') });
  return { fields: x.fields, links: x.links };
}

async function inPage(page, url) {
  const raw = await page.evaluate(`${IN_PAGE}(${query})`);
  const errors = [];
  const out = {};
  fields.forEach((f, i) => {
    out[f.name] = fieldValue(f, raw.fields[i], errors);
  });
  const base = documentBase(url, raw.base ?? undefined);
  return { fields: out, links: base ? collectLinks(sources, raw.links, base) : [] };
}

const ways = {
  content: async (page, url) => viaHtml(url, await page.content()),
  outer: async (page, url) => viaHtml(url, await page.evaluate(READ_DOM)),
  'in-page': (page, url) => inPage(page, url),
};
const names = Object.keys(ways);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const site = await startDemoSite(dist('cli.js'), ['--pages', String(pages + 1), '--js']);
const browser = await chromium.launch({ executablePath, headless: true });
try {
  const page = await (await browser.newContext()).newPage();
  const times = Object.fromEntries([...names, 'render'].map((n) => [n, []]));
  let mismatches = 0;
  for (let i = 1; i <= pages; i++) {
    const url = `${site.url}/p/${i}`;
    let t = performance.now();
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction(() => document.querySelector('span.price') !== null);
    times.render.push(performance.now() - t);
    // Rotate the order so no way always goes first (a warm page favours the later ones).
    const order = names.map((_, k) => names[(k + i) % names.length]);
    const records = {};
    for (const n of order) {
      t = performance.now();
      records[n] = await ways[n](page, url);
      times[n].push(performance.now() - t);
    }
    for (const n of names.slice(1)) {
      if (!isDeepStrictEqual(records[n], records[names[0]])) {
        mismatches++;
        console.log(
          `  ${url}: ${n} differs:`,
          JSON.stringify(records[n]),
          'vs',
          JSON.stringify(records[names[0]]),
        );
      }
    }
    if (typeof records.content.fields.price !== 'number') throw new Error(`${url}: no price rendered`);
  }
  console.log(`browser extraction bench: ${pages} rendered product pages, medians per page`);
  console.log(`  render (goto load + span.price)  ${median(times.render).toFixed(2).padStart(7)} ms`);
  for (const n of names) {
    console.log(
      `  ${n.padEnd(8)} ${median(times[n]).toFixed(2).padStart(7)} ms  ` +
        `(${((median(times[n]) / median(times.render)) * 100).toFixed(1)} % of the render)`,
    );
  }
  console.log(
    `  => in-page / outer ${(median(times['in-page']) / median(times.outer)).toFixed(2)}, ` +
      `in-page / content ${(median(times['in-page']) / median(times.content)).toFixed(2)}; ` +
      `records differing: ${mismatches}`,
  );
} finally {
  await browser.close();
  await site.stop();
}
