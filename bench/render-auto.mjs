// `render: { kind: auto }` on a mix of hosts, in one sitting, as ratios.
//
// The mix: --plain-hosts demo shops served as HTML (`crawld site`) and --js-hosts served as
// script shells (`crawld site --js`), each its own host: its own loopback address
// (127.0.0.11, .12, ...) and port. Own addresses and not only own ports: Crawlee's rendering-type
// predictor compares URL hostnames without the port, so shops on one address would be one site
// to it (--same-address puts them all on 127.0.0.1 to see that). Four crawls of the same mix,
// each as a user runs it (`crawld run --once --config FILE`, no HTTP listener):
//   auto         one crawld job, render { kind: auto, waitForSelector: span.price } (defaults:
//                samplePages 3, recheckEvery 20)
//   hand         crawld with one job per kind of host: http for the plain shops, render
//                { kind: browser, waitForSelector: span.price } for the JS ones (what a user who
//                knows the sites writes by hand: the bound auto tries to reach)
//   browser      crawld, one job, every host { kind: browser, waitForSelector: span.price }
//   crawlee      Crawlee 3.18's AdaptivePlaywrightCrawler (bench/peers/crawlee-adaptive.mjs): same
//                Chromium, same extraction, its own rendering-type prediction at its defaults
// Same fields everywhere: title = h1.title (required), price = span.price as a number (required),
// every <a> of the host followed. For each crawl: pages/s (records / wall seconds, spawn to exit,
// Chromium's start included), the peak RSS and PSS of the whole process tree (crawler, Chromium
// and its renderers; bench/tree-memory.mjs), and correctness: the share of records whose title is
// "Product i" and whose price is page i's (src/demo/shop-content.ts: deterministic, seed 1,
// epoch 0), and coverage: the pages of the mix recorded right at least once. The variants
// alternate over --runs (each round starts with the next one); the ratios are of the medians.
// Crawlers run pinned to core 1, the shops to core 0 (bench/demo-site.mjs), when taskset exists.
//
//   npm run build && node bench/render-auto.mjs [--runs 3] [--plain-hosts 4] [--js-hosts 2]
//     [--plain-pages 300] [--js-pages 60] [--latency-ms 0] [--variants auto,hand,browser,crawlee]
//     [--recheck-every N] [--sample-pages N] [--chromium /usr/bin/chromium] [--cli dist/crawld.mjs]
//     [--same-address] [--cpu-prof DIR] [--log-dir DIR] [--log-level info]
// --cpu-prof DIR runs crawld under `node --cpu-prof` (profiles in DIR; summarise one with
// bench/cpuprofile-summary.mjs); it slows crawld down, so read its rates as such.
// Crawlee and Playwright are installed on first use into bench/peers (npm ci, no browser
// download). Every server is on 127.0.0.0/8; Chromium gets Playwright's switches (background
// networking, component updates and the rest off), crawld's also maps every name to "not found".
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { canPin, startDemoSite } from './demo-site.mjs';
import { installPeers } from './peers-install.mjs';
import { timed } from './tree-memory.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'plain-hosts': { type: 'string', default: '4' },
    'js-hosts': { type: 'string', default: '2' },
    'plain-pages': { type: 'string', default: '300' },
    'js-pages': { type: 'string', default: '60' },
    'latency-ms': { type: 'string', default: '0' },
    variants: { type: 'string', default: 'auto,hand,browser,crawlee' },
    chromium: { type: 'string' },
    cli: { type: 'string', default: resolve(here, '../dist/crawld.mjs') },
    'same-address': { type: 'boolean', default: false },
    'cpu-prof': { type: 'string' },
    /** The auto job's render.recheckEvery and render.samplePages (crawld's defaults when unset). */
    'recheck-every': { type: 'string' },
    'sample-pages': { type: 'string' },
    /** crawld's log.level (info: the "host render decided" lines, nothing per page). */
    'log-level': { type: 'string', default: 'info' },
    /** Keeps each crawl's stdout (crawld's log) in DIR/VARIANT-runN.log. */
    'log-dir': { type: 'string' },
  },
});
const cli = resolve(opt.cli);
const runs = Number(opt.runs);
const plainHosts = Number(opt['plain-hosts']);
const jsHosts = Number(opt['js-hosts']);
const plainPages = Number(opt['plain-pages']);
const jsPages = Number(opt['js-pages']);
const latencyMs = Number(opt['latency-ms']);
const totalPages = plainHosts * plainPages + jsHosts * jsPages;
const chromium =
  opt.chromium ?? ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p)) ?? 'chromium';
const cpuProfDir = opt['cpu-prof'] ? resolve(opt['cpu-prof']) : undefined;
const logDir = opt['log-dir'] ? resolve(opt['log-dir']) : undefined;
if (!existsSync(cli)) {
  console.error(`${cli} is missing: run \`npm run build\` first`);
  process.exit(2);
}
// The demo shop's prices, from the build being measured (dist/src beside dist/crawld.mjs).
const shop = join(dirname(cli), 'src/demo/shop-content.js');
if (!existsSync(shop)) {
  console.error(`${shop} is missing: run \`npm run build\` first`);
  process.exit(2);
}
const { pagePrice } = await import(pathToFileURL(shop).href);
const SEED = 1; // crawld site's default seed, price epoch 0
const expectedPrice = (i) => Number(pagePrice(i, SEED, 0).replace(/[$,]/g, ''));

/** `crawld site` on `address` (port 0), pinned to core 0; its origin and stop(). */
async function startShop(address, { js, pages }) {
  const args = ['--host', address, '--pages', String(pages)];
  if (js) args.push('--js');
  if (latencyMs > 0) args.push('--latency-ms', String(latencyMs));
  const { url, stop } = await startDemoSite(cli, args);
  return { url, js, pages, stop };
}

/**
 * Correctness of a crawl's records ({url, title, price:number|null}): the share with both
 * fields right, the pages of the mix recorded right at least once, and the records per kind of
 * host (to see a JS shop whose links were never found).
 */
function score(records, sites) {
  const kindOf = new Map(sites.map((s) => [new URL(s.url).host, s.js ? 'js' : 'plain']));
  let right = 0;
  const pagesRight = new Set();
  const perKind = { plain: 0, js: 0 };
  for (const r of records) {
    const u = new URL(r.url);
    const kind = kindOf.get(u.host);
    if (kind) perKind[kind]++;
    const m = /^\/(?:p\/(\d+))?$/.exec(u.pathname);
    if (!m) continue;
    const i = m[1] === undefined ? 0 : Number(m[1]);
    if (r.title === `Product ${i}` && r.price === expectedPrice(i)) {
      right++;
      pagesRight.add(`${u.host}${u.pathname}`);
    }
  }
  return {
    records: records.length,
    right,
    correct: records.length ? right / records.length : 0,
    coverage: pagesRight.size / totalPages,
    perKind,
  };
}

/** When the last record of each kind of host was fetched, from the first record (crawld's fetchedAt). */
function timeline(records, sites) {
  const js = new Set(sites.filter((s) => s.js).map((s) => new URL(s.url).host));
  const t0 = Math.min(...records.map((r) => r.at));
  const last = (isJs) =>
    Math.max(...records.filter((r) => js.has(new URL(r.url).host) === isJs).map((r) => r.at)) - t0;
  return `last record from the first: plain shops +${(last(false) / 1000).toFixed(1)} s, JS shops +${(last(true) / 1000).toFixed(1)} s`;
}

const FIELDS = {
  title: { selector: 'h1.title', required: true },
  price: { selector: 'span.price', type: 'number', required: true },
};
const WAIT = { waitForSelector: 'span.price' };
const AUTO = {
  kind: 'auto',
  ...WAIT,
  ...(opt['recheck-every'] ? { recheckEvery: Number(opt['recheck-every']) } : {}),
  ...(opt['sample-pages'] ? { samplePages: Number(opt['sample-pages']) } : {}),
};

function job(id, sites, render) {
  return {
    id,
    seeds: sites.map((s) => `${s.url}/`),
    robots: false,
    ...(render ? { render } : {}),
    extract: { fields: FIELDS, followAllLinks: { tags: ['a'] } },
  };
}

function crawldConfig(dir, sites, variant) {
  const plain = sites.filter((s) => !s.js);
  const js = sites.filter((s) => s.js);
  const jobs =
    variant === 'auto'
      ? [job('shops', sites, AUTO)]
      : variant === 'hand'
        ? [job('plain', plain), job('js', js, { kind: 'browser', ...WAIT })]
        : [job('shops', sites, { kind: 'browser', ...WAIT })];
  const config = {
    dataDir: join(dir, 'data'),
    log: { level: opt['log-level'] },
    fetch: { allowPrivateNetworks: true, browser: { executablePath: chromium } },
    jobs,
  };
  const path = join(dir, 'crawld.json');
  writeFileSync(path, JSON.stringify(config));
  return path;
}

async function runCrawld(sites, variant, round) {
  const dir = mkdtempSync(join(tmpdir(), `crawld-bench-auto-${variant}-`));
  try {
    const config = crawldConfig(dir, sites, variant);
    const prof = cpuProfDir
      ? ['--cpu-prof', '--cpu-prof-dir', cpuProfDir, '--cpu-prof-name', `${variant}-run${round}.cpuprofile`]
      : [];
    const r = await timed(
      [process.execPath, ...prof, cli, 'run', '--once', '--config', config, '--no-progress'],
      { logFile: logDir ? join(logDir, `${variant}-run${round}.log`) : undefined, keepChars: 200_000 },
    );
    const m = /crawld: done in [\d.]+ s: (\d+) ok, (\d+) failed[^\n]*/.exec(r.out);
    if (r.code !== 0 || !m)
      throw new Error(`crawld ${variant} failed (${r.code}): ${(r.err || r.out).slice(-2000)}`);
    const records = readFileSync(join(dir, 'data/results.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const x = JSON.parse(l);
        return {
          url: x.finalUrl ?? x.url,
          title: x.fields?.title ?? null,
          price: x.fields?.price ?? null,
          at: Date.parse(x.fetchedAt),
        };
      });
    const paths = /render auto: (\d+) http, (\d+) browser, (\d+) both/.exec(m[0]);
    const decided = r.out
      .split('\n')
      .filter((l) => l.includes('host render decided'))
      .map((l) => JSON.parse(l).decision);
    const count = (d) => decided.filter((x) => x === d).length;
    const note = paths
      ? `render auto: ${paths[1]} http, ${paths[2]} browser, ${paths[3]} both; hosts decided ` +
        `${count('http')} http, ${count('browser')} browser`
      : `${m[2]} failed`;
    return {
      ...r,
      failed: Number(m[2]),
      note: `${note}; ${timeline(records, sites)}`,
      ...score(records, sites),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runCrawlee(sites) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-auto-crawlee-'));
  try {
    const out = join(dir, 'records.jsonl');
    const r = await timed(
      [
        process.execPath,
        join(here, 'peers/crawlee-adaptive.mjs'),
        out,
        String(totalPages),
        chromium,
        ...sites.map((s) => s.url),
      ],
      // As bench/browser.mjs runs Crawlee: in-memory storage, half the memory for its autoscaling.
      { env: { CRAWLEE_PERSIST_STORAGE: 'false', CRAWLEE_AVAILABLE_MEMORY_RATIO: '0.5' } },
    );
    const line = r.out.split('\n').find((l) => l.startsWith('RESULT '));
    if (r.code !== 0 || !line)
      throw new Error(`crawlee failed (${r.code}): ${(r.err || r.out).slice(-2000)}`);
    const res = JSON.parse(line.slice(7));
    const records = readFileSync(out, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const x = JSON.parse(l);
        const price = x.price ? Number(x.price.replace(/[$,]/g, '')) : null;
        return { url: x.url, title: x.title, price };
      });
    const note =
      `handler runs: ${res.httpOnlyRuns} http-only, ${res.browserRuns} browser, ` +
      `${res.mispredictions} mispredictions, ${res.failed} failed`;
    return { ...r, failed: res.failed, note, ...score(records, sites) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const mb = (b) => (b / 2 ** 20).toFixed(0);
const pct = (x) => `${(100 * x).toFixed(1)} %`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const k = Math.floor(s.length / 2);
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
};

function report(name, r) {
  console.log(
    `  ${name.padEnd(18)} ${String(r.records).padStart(5)} records ${r.secs.toFixed(1).padStart(6)} s ` +
      `${(r.records / r.secs).toFixed(2).padStart(7)} pages/s  tree peak RSS ${mb(r.peakRss).padStart(5)} MB, ` +
      `PSS ${mb(r.peakPss).padStart(5)} MB, ${String(r.peakProcesses).padStart(2)} processes; ` +
      `right ${pct(r.correct)}, coverage ${pct(r.coverage)} (plain ${r.perKind.plain}, js ${r.perKind.js}); ` +
      `load ${loadavg()[0].toFixed(1)}`,
  );
  console.log(`  ${''.padEnd(18)} ${r.note}`);
}

const LABEL = {
  auto: 'crawld auto',
  hand: 'crawld hand-written',
  browser: 'crawld all-browser',
  crawlee: 'Crawlee adaptive',
};
const RUNNERS = {
  auto: (sites, i) => runCrawld(sites, 'auto', i),
  hand: (sites, i) => runCrawld(sites, 'hand', i),
  browser: (sites, i) => runCrawld(sites, 'browser', i),
  crawlee: (sites) => runCrawlee(sites),
};
const variants = opt.variants.split(',').filter(Boolean);
for (const v of variants)
  if (!RUNNERS[v]) throw new Error(`unknown variant ${v} (auto, hand, browser, crawlee)`);
if (variants.includes('crawlee')) installPeers();
if (cpuProfDir) mkdirSync(cpuProfDir, { recursive: true });
if (logDir) mkdirSync(logDir, { recursive: true });

console.log(
  `crawld render auto bench: ${cpus().length} cores, node ${process.version}, chromium ${chromium}, ` +
    `pinned: ${canPin ? 'crawlers core 1, shops core 0' : 'no'}, runs ${runs} (medians)`,
);
const sites = [];
try {
  let n = 0;
  const address = () => (opt['same-address'] ? '127.0.0.1' : `127.0.0.${11 + n++}`);
  for (let k = 0; k < plainHosts; k++)
    sites.push(await startShop(address(), { js: false, pages: plainPages }));
  for (let k = 0; k < jsHosts; k++) sites.push(await startShop(address(), { js: true, pages: jsPages }));
  console.log(
    `mix: ${plainHosts} plain shops x ${plainPages} pages, ${jsHosts} JS shops x ${jsPages} pages ` +
      `(${totalPages} pages), latency ${latencyMs} ms; auto job render ${JSON.stringify(AUTO)}\n` +
      sites.map((s) => `  ${s.js ? 'js   ' : 'plain'} ${s.url}`).join('\n'),
  );

  const results = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 1; i <= runs; i++) {
    console.log(`\n== round ${i}`);
    const order = variants.map((_, k) => variants[(k + i - 1) % variants.length]);
    for (const v of order) {
      const r = await RUNNERS[v](sites, i);
      report(LABEL[v], r);
      results[v].push(r);
    }
  }

  const med = (v, f) => median(results[v].map(f));
  const rate = (v) => med(v, (r) => r.records / r.secs);
  const rss = (v) => med(v, (r) => r.peakRss);
  const pss = (v) => med(v, (r) => r.peakPss);
  console.log(`\n== medians over ${runs} runs`);
  for (const v of variants)
    console.log(
      `  ${LABEL[v].padEnd(20)} ${rate(v).toFixed(2).padStart(7)} pages/s ${med(v, (r) => r.secs)
        .toFixed(1)
        .padStart(6)} s  tree peak RSS ${mb(rss(v)).padStart(5)} MB, PSS ${mb(pss(v)).padStart(5)} MB; ` +
        `right ${pct(med(v, (r) => r.correct))}, coverage ${pct(med(v, (r) => r.coverage))}`,
    );
  const has = (...vs) => vs.every((v) => variants.includes(v));
  const ratio = (a, b) => rate(a) / rate(b);
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  console.log('\n== ratios of medians');
  if (has('auto', 'hand')) {
    const x = ratio('auto', 'hand');
    console.log(
      `  pages/s auto / hand-written   ${x.toFixed(2).padStart(6)}  (goal >= 0.8: ${verdict(x >= 0.8)})`,
    );
  }
  if (has('auto', 'browser')) {
    const x = ratio('auto', 'browser');
    console.log(
      `  pages/s auto / all-browser    ${x.toFixed(2).padStart(6)}  (goal >= 5: ${verdict(x >= 5)})`,
    );
  }
  if (has('auto', 'crawlee')) {
    const x = ratio('auto', 'crawlee');
    console.log(
      `  pages/s auto / Crawlee        ${x.toFixed(2).padStart(6)}  (goal >= 2: ${verdict(x >= 2)})`,
    );
  }
  if (has('auto', 'browser'))
    console.log(
      `  peak RSS auto / all-browser   ${(rss('auto') / rss('browser')).toFixed(2).padStart(6)}  ` +
        `(${mb(rss('auto'))} vs ${mb(rss('browser'))} MB; goal < 1: ${verdict(rss('auto') < rss('browser'))}); ` +
        `PSS ${(pss('auto') / pss('browser')).toFixed(2)}`,
    );
  if (has('auto', 'crawlee'))
    console.log(
      `  peak RSS auto / Crawlee       ${(rss('auto') / rss('crawlee')).toFixed(2).padStart(6)}  ` +
        `(${mb(rss('auto'))} vs ${mb(rss('crawlee'))} MB; goal <= 1: ${verdict(rss('auto') <= rss('crawlee'))}); ` +
        `PSS ${(pss('auto') / pss('crawlee')).toFixed(2)}`,
    );
  if (has('auto', 'hand'))
    console.log(
      `  peak RSS auto / hand-written  ${(rss('auto') / rss('hand')).toFixed(2).padStart(6)}  ` +
        `(${mb(rss('auto'))} vs ${mb(rss('hand'))} MB)`,
    );
} finally {
  await Promise.all(sites.map((s) => s.stop()));
}
