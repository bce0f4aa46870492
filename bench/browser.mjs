#!/usr/bin/env node
// The browser path, in one run (docs/browser.md):
//   crawld-browser  `crawld run --once` with render.kind browser on the JS demo shop
//                   (`crawld site --js`): waitForSelector span.price, fields title and price,
//                   the related links followed
//   crawlee         Crawlee's PlaywrightCrawler on the same site, same Chromium
//                   (launchOptions.executablePath), same waits and extraction (needs
//                   @crawlee/playwright and playwright resolvable from --crawlee-dir; skipped
//                   otherwise; no browser is ever downloaded)
//   crawld-http     crawld's http path on the non-JS demo shop (same pages, same fields)
// Each is a whole process timed spawn to exit; peak RSS is of its whole process tree (the
// browser's processes included), summed from /proc every 100 ms. Prints pages/s, peak RSS and
// the ratios crawld-browser/crawlee and crawld-browser/crawld-http. The machine is shared:
// compare within one run only.
//
//   npm run build && node bench/browser.mjs --pages 300 --runs 3
//
// --sweep 1,2,4,8 (with --latency-ms 50): the adaptive limit against fixed page counts. crawld's
// browser path runs with its defaults (adaptive concurrency, --max-pages pages), then once per
// listed count with concurrency.adaptive false and fetch.browser.maxPages and maxPerHost at
// that count; prints adaptive / best fixed (the goal: >= 0.9).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    pages: { type: 'string', default: '300' },
    runs: { type: 'string', default: '1' },
    /** Pages rendered at once, for both crawlers (crawld: fetch.browser.maxPages). */
    'max-pages': { type: 'string', default: '8' },
    chromium: { type: 'string', default: '/usr/bin/chromium' },
    'crawlee-dir': { type: 'string', default: process.env.CRAWLEE_DIR ?? '/work/shared/bench' },
    'latency-ms': { type: 'string', default: '0' },
    sweep: { type: 'string' },
  },
});
const pages = Number(opt.pages);
const maxPages = Number(opt['max-pages']);
const cli = join(root, 'dist', 'crawld.mjs');
if (!existsSync(cli)) throw new Error('dist/crawld.mjs missing: npm run build');

function freePort() {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** RSS of pid and all its descendants, from /proc. */
function treeRss(pid) {
  const kids = new Map();
  const rss = new Map();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ppid = Number(f[1]);
      rss.set(Number(name), Number(f[21]) * 4096);
      if (!kids.has(ppid)) kids.set(ppid, []);
      kids.get(ppid).push(Number(name));
    } catch {}
  }
  let total = 0;
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    total += rss.get(p) ?? 0;
    stack.push(...(kids.get(p) ?? []));
  }
  return total;
}

function run(cmd, args, env = {}) {
  return new Promise((res) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    let peak = 0;
    const timer = setInterval(() => (peak = Math.max(peak, treeRss(child.pid))), 100);
    child.on('exit', (code) => {
      clearInterval(timer);
      res({ code, seconds: (performance.now() - t0) / 1000, peak, out, err });
    });
  });
}

async function startSite(js) {
  const port = await freePort();
  const args = [
    cli,
    'site',
    '--port',
    String(port),
    '--pages',
    String(pages),
    '--latency-ms',
    opt['latency-ms'],
  ];
  if (js) args.push('--js');
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((res) => child.stdout.once('data', res));
  return { origin: `http://127.0.0.1:${port}`, port, child };
}

async function crawld(site, browser, fixed) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-browser-'));
  const config = join(dir, 'crawld.json');
  writeFileSync(
    config,
    JSON.stringify({
      dataDir: dir,
      log: { level: 'error' },
      fetch: {
        allowAddresses: [`127.0.0.1:${site.port}`],
        ...(browser ? { browser: { executablePath: opt.chromium, maxPages: fixed ?? maxPages } } : {}),
      },
      ...(fixed ? { concurrency: { adaptive: false, maxPerHost: fixed, initialPerHost: fixed } } : {}),
      jobs: [
        {
          id: 'shop',
          seeds: [`${site.origin}/`],
          ...(browser ? { render: { kind: 'browser', waitForSelector: 'span.price' } } : {}),
          extract: {
            fields: { title: { selector: 'h1.title' }, price: { selector: 'span.price' } },
            follow: [{ selector: 'ul.related a' }],
            followAllLinks: false,
          },
        },
      ],
    }),
  );
  const r = await run(process.execPath, [cli, 'run', '--config', config, '--once', '--no-progress']);
  const lines = existsSync(join(dir, 'results.jsonl'))
    ? readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n').filter(Boolean)
    : [];
  const priced = lines.filter((l) => JSON.parse(l).fields.price).length;
  rmSync(dir, { recursive: true, force: true });
  if (r.code !== 0) throw new Error(`crawld exited ${r.code}: ${r.err.slice(-2000)}`);
  return { pages: lines.length, priced, seconds: r.seconds, peak: r.peak };
}

function crawleeAvailable(dir) {
  return ['@crawlee/playwright', 'playwright'].every((p) =>
    existsSync(join(dir, 'node_modules', p, 'package.json')),
  );
}

async function crawlee(site) {
  const storage = mkdtempSync(join(tmpdir(), 'crawlee-bench-'));
  const r = await run(
    process.execPath,
    [
      join(root, 'bench', 'crawlee-browser.mjs'),
      opt['crawlee-dir'],
      site.origin,
      String(pages),
      opt.chromium,
      String(maxPages),
    ],
    { CRAWLEE_STORAGE_DIR: storage, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', CRAWLEE_LOG_LEVEL: 'ERROR' },
  );
  rmSync(storage, { recursive: true, force: true });
  const m = /RESULT (\{.*\})/.exec(r.out);
  if (!m) throw new Error(`crawlee failed (${r.code}): ${r.err.slice(-2000)}`);
  const res = JSON.parse(m[1]);
  return { pages: res.pages, priced: res.pages, seconds: r.seconds, peak: r.peak };
}

if (opt.sweep) {
  const site = await startSite(true);
  try {
    const adaptive = await crawld(site, true);
    const rate = (r) => r.pages / r.seconds;
    console.log(`adaptive        ${rate(adaptive).toFixed(2).padStart(8)} pages/s  (max ${maxPages} pages)`);
    let best = 0;
    for (const k of opt.sweep.split(',').map(Number)) {
      const r = await crawld(site, true, k);
      best = Math.max(best, rate(r));
      console.log(`fixed ${String(k).padEnd(9)} ${rate(r).toFixed(2).padStart(8)} pages/s`);
    }
    console.log(
      `adaptive / best fixed: x${(rate(adaptive) / best).toFixed(2)} (latency ${opt['latency-ms']} ms, ${pages} pages, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(' ')})`,
    );
  } finally {
    site.child.kill('SIGTERM');
  }
  process.exit(0);
}

const jsSite = await startSite(true);
const htmlSite = await startSite(false);
const withCrawlee = crawleeAvailable(opt['crawlee-dir']);
if (!withCrawlee)
  console.log(
    `crawlee: @crawlee/playwright and playwright not found under ${opt['crawlee-dir']}/node_modules: skipped`,
  );
const results = { 'crawld-browser': [], crawlee: [], 'crawld-http': [] };
try {
  for (let i = 0; i < Number(opt.runs); i++) {
    results['crawld-browser'].push(await crawld(jsSite, true));
    if (withCrawlee) results.crawlee.push(await crawlee(jsSite));
    results['crawld-http'].push(await crawld(htmlSite, false));
  }
} finally {
  jsSite.child.kill('SIGTERM');
  htmlSite.child.kill('SIGTERM');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const summary = {};
for (const [name, rs] of Object.entries(results)) {
  if (rs.length === 0) continue;
  summary[name] = {
    pagesPerSec: median(rs.map((r) => r.pages / r.seconds)),
    peakRssMiB: median(rs.map((r) => r.peak / 2 ** 20)),
    pages: rs.map((r) => r.pages),
    priced: rs.map((r) => r.priced),
  };
  const s = summary[name];
  console.log(
    `${name.padEnd(15)} ${s.pagesPerSec.toFixed(2).padStart(8)} pages/s  peak tree RSS ${s.peakRssMiB.toFixed(0)} MiB  pages ${s.pages.join('/')} priced ${s.priced.join('/')}`,
  );
}
const b = summary['crawld-browser'];
if (summary.crawlee)
  console.log(
    `crawld-browser / crawlee: pages/s x${(b.pagesPerSec / summary.crawlee.pagesPerSec).toFixed(2)}, peak RSS x${(b.peakRssMiB / summary.crawlee.peakRssMiB).toFixed(2)}`,
  );
console.log(
  `crawld-browser / crawld-http: pages/s x${(b.pagesPerSec / summary['crawld-http'].pagesPerSec).toFixed(3)}`,
);
console.log(
  `(${pages} pages, max ${maxPages} pages at once, load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')})`,
);
