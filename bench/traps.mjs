#!/usr/bin/env node
// Crawler traps (issue 43): crawld with its defaults, crawld with every trap defence off, wget and
// Scrapy on the trap site, each a whole process, in one sitting:
//
//   apt-get install python3-scrapy                      # wget is in Debian's base system
//   npm run build && node bench/traps.mjs [--runs 3] [--cap-s 90]
//     [--crawlers crawld,crawld-off,wget,wget-inf,scrapy] [--sites traps,listing] [--json FILE]
//     [--dist DIR] [--dist-b DIR]    (another build's defaults as crawler crawld-b: before/after)
//
// Two sites (src/demo/trap-site.ts, compiled to dist/src/demo/trap-site.js): `traps`, a shop of
// 200 products behind a 20-page listing, with session ids in the help section's links, an
// endless events calendar, a docs folder linked relatively on a server that answers any path
// under it, a faceted shop front and 200 answers for missing paths (233 real pages); `listing`,
// 400 products behind a 40-page listing and no traps (441 real pages). A fresh site for every
// run, in a child process on core 0; the crawler on core 1. The crawlers:
//   crawld      `crawld crawl URL --once`, no config (the defaults)
//   crawld-off  the same with `--config` naming a job `{ id: default, seeds: [URL], traps: false }`
//               (and log level warn, as without a config)
//   wget        `wget -r -l 5 -nd --delete-after` (the depth 5)
//   wget-inf    `wget -r -l inf -nd --delete-after`
//   scrapy      a CrawlSpider following every link on the host (bench/peers/scrapy_site_spider.py)
//               in a project made by `scrapy startproject`: its settings (ROBOTSTXT_OBEY = True,
//               no DEPTH_LIMIT), log output to a file
//   crawld-b    (with --dist-b) crawld's defaults in the other build
// Each run ends by itself or is sent SIGTERM at --cap-s (then SIGKILL 15 s later). Every figure
// comes from the site's own counts, never from the crawler's output: real pages found (distinct
// real pages served, whatever session id their URL carried), requests, requests outside real
// pages (requests - real pages found: repeats, calendar, facets, soft 404s, robots.txt), wall
// seconds from spawn to exit, and the crawler's CPU seconds (/proc, sampled every 100 ms).
// Prints a JSON line per run, then a table per site (min / median / max over the runs) and, for
// crawld's defaults, issue 43's bar: every real page, ends by itself, requests outside real pages
// at most the real pages' count.
import { spawn, spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { canPin, pinned } from './demo-site.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'cap-s': { type: 'string', default: '90' },
    crawlers: { type: 'string', default: 'crawld,crawld-off,wget,wget-inf,scrapy' },
    sites: { type: 'string', default: 'traps,listing' },
    json: { type: 'string' },
    /** The build to run (a dist/ directory: its crawld.mjs and its trap site). */
    dist: { type: 'string', default: join(root, 'dist') },
    /** Another build, run with its defaults as crawler crawld-b (before/after, interleaved). */
    'dist-b': { type: 'string' },
  },
});
const RUNS = Number(opt.runs);
const CAP_S = Number(opt['cap-s']);
const KILL_AFTER_S = 15;
const CLI = join(resolve(opt.dist), 'crawld.mjs');
const CLI_B = opt['dist-b'] ? join(resolve(opt['dist-b']), 'crawld.mjs') : undefined;
const SITE_MODULE = join(resolve(opt.dist), 'src', 'demo', 'trap-site.js');
const SPIDER = join(root, 'bench', 'peers', 'scrapy_site_spider.py');

const SITES = {
  traps: { traps: true, products: 200, perPage: 10 },
  listing: { traps: false, products: 400, perPage: 10 },
};
const CRAWLERS = ['crawld', 'crawld-off', 'wget', 'wget-inf', 'scrapy', ...(CLI_B ? ['crawld-b'] : [])];
const list = (s, known, what) => {
  const xs = s.split(',').map((x) => x.trim());
  for (const x of xs) {
    if (!known.includes(x)) {
      console.error(`unknown ${what} ${x} (${known.join(', ')})`);
      process.exit(2);
    }
  }
  return xs;
};
const sites = list(opt.sites, Object.keys(SITES), 'site');
const crawlers = list(opt.crawlers, CRAWLERS, 'crawler');
if (CLI_B && !crawlers.includes('crawld-b')) crawlers.splice(1, 0, 'crawld-b');
for (const f of [CLI, CLI_B, SITE_MODULE]) {
  if (f !== undefined && !existsSync(f)) {
    console.error(`${f} missing: run \`npm run build\` first`);
    process.exit(2);
  }
}
if (crawlers.some((c) => c.startsWith('wget')) && spawnSync('wget', ['--version']).error) {
  console.error('wget missing: apt-get install wget');
  process.exit(2);
}
if (crawlers.includes('scrapy') && spawnSync('scrapy', ['version']).error) {
  console.error('scrapy missing: apt-get install python3-scrapy');
  process.exit(2);
}
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout) || 100;

/**
 * The trap site in a child process on core 0, asked for its counts over IPC: resolves with its
 * URL, stats() and close().
 */
async function startSite(options) {
  const code = `
    const { startTrapSite } = await import(process.env.TRAP_SITE_MODULE);
    const site = await startTrapSite(JSON.parse(process.argv[1]));
    process.send({ url: site.url });
    process.on('message', async (m) => {
      if (m === 'stats') process.send({ stats: site.stats() });
      if (m === 'close') { await site.close(); process.exit(0); }
    });`;
  const argv = pinned(0, [process.execPath, '--input-type=module', '-e', code, JSON.stringify(options)]);
  const child = spawn(argv[0], argv.slice(1), {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, TRAP_SITE_MODULE: pathToFileURL(SITE_MODULE).href },
  });
  const next = () =>
    new Promise((res, rej) => {
      const onExit = (c) => rej(new Error(`trap site exited with ${c}`));
      child.once('exit', onExit);
      child.once('message', (m) => {
        child.off('exit', onExit);
        res(m);
      });
    });
  const { url } = await next();
  return {
    url,
    stats: async () => {
      const reply = next();
      child.send('stats');
      return (await reply).stats;
    },
    close: () =>
      new Promise((res) => {
        child.once('exit', () => res());
        child.send('close');
      }),
  };
}

/** utime + stime of a process, in seconds; undefined once it is gone. */
function cpuOf(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / CLK_TCK;
  } catch {
    return undefined;
  }
}

/**
 * Runs argv on core 1 from spawn to exit: SIGTERM at the cap, SIGKILL KILL_AFTER_S later.
 * stderr goes to `log`; stdout's tail is kept.
 */
function run(argv, { cwd, log }) {
  const full = pinned(1, argv);
  const errFd = openSync(log, 'w');
  return new Promise((res, rej) => {
    const t0 = performance.now();
    // taskset execs the crawler: the pid is the crawler's own.
    const child = spawn(full[0], full.slice(1), { cwd, stdio: ['ignore', 'pipe', errFd] });
    let out = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-20_000);
    });
    let cpu = 0;
    const poll = setInterval(() => {
      cpu = cpuOf(child.pid) ?? cpu;
    }, 100);
    let capped = false;
    let kill;
    const cap = setTimeout(() => {
      capped = true;
      child.kill('SIGTERM');
      kill = setTimeout(() => child.kill('SIGKILL'), KILL_AFTER_S * 1000);
    }, CAP_S * 1000);
    child.once('error', rej);
    child.once('close', (code, signal) => {
      const seconds = (performance.now() - t0) / 1000;
      clearInterval(poll);
      clearTimeout(cap);
      clearTimeout(kill);
      closeSync(errFd);
      res({ seconds, cpu, capped, code, signal, out });
    });
  });
}

/** A project made by `scrapy startproject`, with the bench's spider in it. */
function scrapyProject(dir) {
  const r = spawnSync('scrapy', ['startproject', 'trapbench', dir], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`scrapy startproject failed: ${r.stderr}`);
  copyFileSync(SPIDER, join(dir, 'trapbench', 'spiders', 'site.py'));
  return dir;
}

function argvOf(crawler, url, dir) {
  const cli = crawler === 'crawld-b' ? CLI_B : CLI;
  const crawld = [process.execPath, cli, 'crawl', url, '--once', '--allow-private-networks'];
  const dataDir = ['--data-dir', join(dir, 'data'), '--no-progress'];
  if (crawler === 'crawld' || crawler === 'crawld-b') return [...crawld, ...dataDir];
  if (crawler === 'crawld-off') {
    const config = join(dir, 'crawld.json');
    // `crawl URL --config FILE` adds URL to the first job's seeds; without a config crawl logs at warn.
    const job = { id: 'default', seeds: [url], traps: false };
    writeFileSync(config, JSON.stringify({ log: { level: 'warn' }, jobs: [job] }));
    return [...crawld, '--config', config, ...dataDir];
  }
  if (crawler === 'wget' || crawler === 'wget-inf') {
    const depth = crawler === 'wget' ? '5' : 'inf';
    return ['wget', '-r', '-l', depth, '-nd', '-P', join(dir, 'wget'), '--delete-after', '-q', url];
  }
  return ['scrapy', 'crawl', 'site', '-a', `start=${url}`];
}

async function once(siteName, crawler, i, project) {
  const site = await startSite(SITES[siteName]);
  const dir = mkdtempSync(join(tmpdir(), 'crawld-traps-'));
  try {
    const r = await run(argvOf(crawler, site.url, dir), {
      cwd: crawler === 'scrapy' ? project : dir,
      log: join(dir, 'stderr.log'),
    });
    const s = await site.stats();
    const sample = {
      site: siteName,
      crawler,
      run: i + 1,
      realFound: s.realServed,
      realPages: s.realPages,
      requests: s.requests,
      outside: s.requests - s.realServed,
      seconds: +r.seconds.toFixed(2),
      cpuSeconds: +r.cpu.toFixed(2),
      endedByItself: !r.capped,
      exit: r.signal ?? r.code,
      byKind: s.byKind,
    };
    // crawld's own summary, for the reader: the figures above are the site's.
    if (crawler.startsWith('crawld')) sample.summary = r.out.trim().split('\n');
    if (!r.capped && r.code !== 0 && !crawler.startsWith('wget')) {
      // wget exits 8 when a page answered an error (the soft 404s' 404 robots.txt, ...): not a failure.
      sample.stderrTail = readFileSync(join(dir, 'stderr.log'), 'utf8').slice(-1000);
    }
    console.log(JSON.stringify(sample));
    return sample;
  } finally {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const fmt = (x, d) => x.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
const mmm = (xs, d = 0) =>
  xs.length === 1
    ? fmt(xs[0], d)
    : `${fmt(Math.min(...xs), d)} / ${fmt(median(xs), d)} / ${fmt(Math.max(...xs), d)}`;

function table(siteName, samples) {
  const rows = [
    ['crawler', 'real pages found', 'requests', 'outside real pages', 'seconds', 'CPU s', 'ended'],
  ];
  for (const c of crawlers) {
    const xs = samples.filter((s) => s.crawler === c);
    if (xs.length === 0) continue;
    const ended = xs.filter((s) => s.endedByItself).length;
    rows.push([
      c,
      `${mmm(xs.map((s) => s.realFound))} of ${xs[0].realPages}`,
      mmm(xs.map((s) => s.requests)),
      mmm(xs.map((s) => s.outside)),
      mmm(
        xs.map((s) => s.seconds),
        1,
      ),
      mmm(
        xs.map((s) => s.cpuSeconds),
        1,
      ),
      `${ended} of ${xs.length} by itself`,
    ]);
  }
  const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
  const line = (r) => `| ${r.map((c, k) => c.padEnd(widths[k])).join(' | ')} |`;
  console.log(`\n${siteName} (min / median / max over ${RUNS} run${RUNS === 1 ? '' : 's'}; cap ${CAP_S} s)`);
  console.log(line(rows[0]));
  console.log(`| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
  for (const r of rows.slice(1)) console.log(line(r));
  // Issue 43's bar for crawld's defaults.
  for (const c of ['crawld', 'crawld-b']) {
    const own = samples.filter((s) => s.crawler === c);
    if (own.length === 0) continue;
    const all = own.filter((s) => s.realFound === s.realPages).length;
    const ended = own.filter((s) => s.endedByItself).length;
    const cheap = own.filter((s) => s.outside <= s.realPages).length;
    console.log(
      `${c} (defaults): every real page in ${all} of ${own.length} runs, ended by itself in ${ended}, ` +
        `requests outside real pages <= real pages (${own[0].realPages}) in ${cheap}`,
    );
  }
}

console.log(
  `traps bench: ${cpus().length} cores, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, site on core 0 and crawlers on core 1: ${canPin ? 'yes' : 'no (taskset missing)'}, ` +
    `${new Date().toISOString()}`,
);
const projectDir = mkdtempSync(join(tmpdir(), 'crawld-scrapy-'));
const project = crawlers.includes('scrapy') ? scrapyProject(join(projectDir, 'trapbench')) : undefined;
const samples = [];
try {
  for (const siteName of sites) {
    for (let i = 0; i < RUNS; i++) {
      // Each run starts with another crawler, so that a drift in the machine's load is spread.
      const order = crawlers.map((_, k) => crawlers[(k + i) % crawlers.length]);
      for (const c of order) samples.push(await once(siteName, c, i, project));
    }
  }
} finally {
  rmSync(projectDir, { recursive: true, force: true });
}
for (const siteName of sites)
  table(
    siteName,
    samples.filter((s) => s.site === siteName),
  );
console.log(
  `\nload at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
if (opt.json) writeFileSync(opt.json, JSON.stringify(samples, null, 2));
