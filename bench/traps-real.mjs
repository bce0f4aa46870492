#!/usr/bin/env node
// The trap defences (issue 43) on real sites: Debian's documentation packages served by nginx
// on 127.0.0.1, each crawled by `crawld crawl URL --once` with the defaults and with every
// defence off (`--config` naming a job `{ id: default, seeds: [URL], traps: false }`), in one
// sitting, alternating. The defaults must lose nothing: 100 % of the pages and titles of the
// crawl without defences.
//
//   apt-get install nginx-light postgresql-doc-15 python3-doc rust-doc
//   npm run build && node bench/traps-real.mjs [--roots DIR,DIR] [--runs 1] [--show 20] [--json FILE]
//     [--keep DIR]    each crawl's results.jsonl, as DIR/PACKAGE-VARIANT-RUN.jsonl
//     [--dist-b DIR]  another build, crawled with its defaults too (defaults-b): before/after
//
// Default roots: /usr/share/doc/postgresql-doc-15/html (1,170 pages), python3-doc's
// /usr/share/doc/python3-doc/html (a link, served as /usr/share/doc/python3.11/html: 527) and
// /usr/share/doc/rust-doc/html (21,635 pages reachable from its index, of ~32,000 files). All
// crawls log at info (the trap rules' "pattern stopped", "parameter dropped" and "soft 404
// probed" lines; the defaults otherwise log at warn). Per crawl: the records with status 200
// (pages), their distinct titles, wall seconds from spawn to exit and pages/s, the records that
// carry `trap` (pages not expanded) by kind with the first --show URLs of each, the rules the
// host taught, and crawld's summary lines. Per site: whether both settings recorded exactly the
// same URLs (the keys of status-200 records) and the same titles; every URL the defaults lost
// (a count by rule, then the first 200), with its record's status and `trap` if it has one, or
// the path rule that refused it, or the stopped pattern it matches; and a table over the sites
// at the end. pages/s is pages over wall seconds of the whole process: compare it within a
// sitting only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { haveNginx, startNginx } from './nginx-site.mjs';

const root = resolve(import.meta.dirname, '..');
const DEFAULT_ROOTS = [
  '/usr/share/doc/postgresql-doc-15/html',
  '/usr/share/doc/python3-doc/html',
  '/usr/share/doc/rust-doc/html',
];
const { values: opt } = parseArgs({
  options: {
    roots: { type: 'string', default: DEFAULT_ROOTS.join(',') },
    runs: { type: 'string', default: '1' },
    show: { type: 'string', default: '20' },
    json: { type: 'string' },
    /** Keeps each crawl's results.jsonl in this directory (NAME-VARIANT-RUN.jsonl). */
    keep: { type: 'string' },
    /** Another build (a dist/ directory), crawled with its defaults as variant defaults-b. */
    'dist-b': { type: 'string' },
  },
});
const RUNS = Number(opt.runs);
const SHOW = Number(opt.show);
const CLI = join(root, 'dist', 'crawld.mjs');
const CLI_B = opt['dist-b'] ? join(resolve(opt['dist-b']), 'crawld.mjs') : undefined;
const dist = (p) => pathToFileURL(join(root, 'dist', 'src', p)).href;
for (const c of [CLI, CLI_B]) {
  if (c !== undefined && !existsSync(c)) {
    console.error(`${c} missing: run \`npm run build\` first`);
    process.exit(2);
  }
}
if (!haveNginx()) {
  console.error('nginx missing: apt-get install nginx-light (and postgresql-doc-15, python3-doc, rust-doc)');
  process.exit(2);
}
// python3-doc's html is a symlink into python3.11-doc: serve the real directory.
const roots = opt.roots.split(',').map((r) => {
  if (!existsSync(r)) {
    console.error(`${r} missing: apt-get install the package that holds it`);
    process.exit(2);
  }
  return realpathSync(r);
});
const { hasRepeatedRun, segmentCount } = await import(dist('core/traps/paths.js'));
const { splitKey, urlPattern } = await import(dist('core/traps/url-pattern.js'));
const { TRAP_DEFAULTS } = await import(dist('core/traps/trap-options.js'));

function crawl(origin, variant, keepAs) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-traps-real-'));
  try {
    const args = [
      'crawl',
      `${origin}/`,
      '--once',
      '--allow-private-networks',
      '--data-dir',
      join(dir, 'data'),
    ];
    if (variant === 'off') {
      const config = join(dir, 'crawld.json');
      // `crawl URL --config FILE` adds URL to the first job's seeds.
      const job = { id: 'default', seeds: [`${origin}/`], traps: false };
      writeFileSync(config, JSON.stringify({ log: { level: 'warn' }, jobs: [job] }));
      args.push('--config', config);
    }
    args.push('--log-level', 'info', '--no-progress');
    const cli = variant === 'defaults-b' ? CLI_B : CLI;
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
    const seconds = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`crawl exited ${r.status}: ${r.stderr.slice(-2000)}`);
    const results = readFileSync(join(dir, 'data', 'results.jsonl'), 'utf8');
    if (keepAs !== undefined) writeFileSync(keepAs, results);
    const records = results
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    const learned = r.stderr
      .split('\n')
      .filter((l) => l.includes('"trap: '))
      .map((l) => JSON.parse(l))
      .map(({ message, param, pattern, soft_404 }) => ({ message, param, pattern, soft_404 }));
    return { records, seconds, summary: r.stdout.trim().split('\n'), learned };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function describe(r) {
  const ok = r.records.filter((rec) => rec.status === 200);
  const pages = new Map(ok.map((rec) => [rec.key, rec.fields?.title ?? '']));
  const trapped = new Map();
  for (const rec of r.records) {
    if (rec.trap === undefined) continue;
    if (!trapped.has(rec.trap)) trapped.set(rec.trap, []);
    trapped.get(rec.trap).push(rec.url);
  }
  return {
    pages,
    titles: new Set(pages.values()),
    other: r.records.length - ok.length,
    trapped,
    byKey: new Map(r.records.map((rec) => [rec.key, rec])),
  };
}

/** Why the defaults have no status-200 record of `key`, as far as the records and the rules tell. */
function whyLost(key, d, learned) {
  const rec = d.byKey.get(key);
  if (rec !== undefined) return `recorded with status ${rec.status}${rec.trap ? `, trap ${rec.trap}` : ''}`;
  const { path, search } = splitKey(key);
  if (segmentCount(path) > TRAP_DEFAULTS.maxPathSegments) return 'never fetched: long_path';
  if (hasRepeatedRun(path, TRAP_DEFAULTS.maxSegmentRepeats)) return 'never fetched: repeated_path';
  const pattern = urlPattern(path, search);
  if (learned.some((l) => l.pattern === pattern))
    return `never fetched: near_duplicate_series (pattern ${pattern} stopped)`;
  const params = learned.filter((l) => l.param !== undefined && search.includes(`${l.param}=`));
  if (params.length > 0) return `never fetched: session_like (${params.map((l) => l.param).join(', ')})`;
  return 'never fetched: linked only from pages not expanded, or not linked at all';
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const kinds = (trapped) =>
  trapped.size === 0 ? 'none' : [...trapped].map(([k, urls]) => `${k} ${urls.length}`).join(', ');

/** One crawl, printed with its traps and kept as a sample. */
function report(docroot, variant, i, r, d) {
  const rate = d.pages.size / r.seconds;
  console.log(
    `${docroot} ${variant}: ${d.pages.size} pages (status 200), ${d.titles.size} distinct titles, ` +
      `${d.other} other records, ${r.seconds.toFixed(1)} s, ${rate.toFixed(0)} pages/s; ` +
      `records with trap: ${kinds(d.trapped)}`,
  );
  for (const line of r.summary) console.log(`  ${line}`);
  for (const l of r.learned) console.log(`  learned: ${JSON.stringify(l)}`);
  for (const [kind, urls] of d.trapped) {
    console.log(`  trap ${kind} (${urls.length}), first ${Math.min(SHOW, urls.length)}:`);
    for (const u of urls.slice(0, SHOW)) console.log(`    ${u}`);
  }
  const sample = {
    root: docroot,
    variant,
    run: i + 1,
    pages: d.pages.size,
    titles: d.titles.size,
    otherRecords: d.other,
    seconds: +r.seconds.toFixed(2),
    pagesPerSecond: +rate.toFixed(1),
    trapRecords: Object.fromEntries([...d.trapped].map(([k, urls]) => [k, urls.length])),
    learned: r.learned,
    summary: r.summary,
  };
  console.log(JSON.stringify(sample));
  return sample;
}

/** A crawl with defences against the crawl without: what it lost, and why. */
function compare(docroot, variant, on, off) {
  const lost = [...off.d.pages.keys()].filter((k) => !on.d.pages.has(k));
  const extra = [...on.d.pages.keys()].filter((k) => !off.d.pages.has(k));
  const lostTitles = [...off.d.titles].filter((t) => !on.d.titles.has(t));
  const sameUrls = lost.length === 0 && extra.length === 0;
  const sameTitles = lostTitles.length === 0 && on.d.titles.size === off.d.titles.size;
  console.log(
    `${docroot} ${variant} against off: same URLs ${sameUrls ? 'yes' : `NO (lost ${lost.length}, extra ${extra.length})`}, ` +
      `same titles ${sameTitles ? 'yes' : `NO (lost ${lostTitles.length})`}`,
  );
  const why = new Map(lost.map((k) => [k, whyLost(k, on.d, on.r.learned)]));
  const byRule = new Map();
  for (const w of why.values()) {
    const rule = w.replace(/ \(.*$/, '');
    byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
  }
  for (const [rule, n] of byRule) console.log(`  lost ${n}: ${rule}`);
  if (lost.length > 200) console.log(`  the first 200 of ${lost.length}:`);
  for (const k of lost.slice(0, 200)) console.log(`  lost ${k}: ${why.get(k)}`);
  for (const k of extra.slice(0, 20)) console.log(`  extra ${k}`);
  for (const t of lostTitles.slice(0, 20)) console.log(`  lost title ${JSON.stringify(t)}`);
  return { sameUrls, sameTitles, lost: lost.length, lostTitles: lostTitles.length };
}

console.log(
  `traps on real sites: ${cpus().length} cores, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ${new Date().toISOString()}`,
);
const variants = ['defaults', 'off', ...(CLI_B ? ['defaults-b'] : [])];
const rows = [];
const samples = [];
let allSame = true;
for (const docroot of roots) {
  const site = await startNginx(docroot);
  try {
    const rates = Object.fromEntries(variants.map((v) => [v, []]));
    const last = {};
    for (let i = 0; i < RUNS; i++) {
      // Each run starts with another variant.
      const order = variants.map((_, k) => variants[(k + i) % variants.length]);
      for (const variant of order) {
        const name = docroot.split('/').filter(Boolean).at(-2);
        const keepAs = opt.keep && join(opt.keep, `${name}-${variant}-${i + 1}.jsonl`);
        const r = crawl(site.origin, variant, keepAs);
        const d = describe(r);
        rates[variant].push(d.pages.size / r.seconds);
        last[variant] = { r, d };
        samples.push(report(docroot, variant, i, r, d));
      }
    }
    for (const variant of variants.filter((v) => v !== 'off')) {
      const on = last[variant];
      const off = last.off;
      const c = compare(docroot, variant, on, off);
      if (!c.sameUrls || !c.sameTitles) allSame = false;
      const ratio = median(rates[variant]) / median(rates.off);
      rows.push([
        docroot,
        variant,
        `${on.d.pages.size} / ${off.d.pages.size}`,
        `${on.d.titles.size} / ${off.d.titles.size}`,
        c.sameUrls ? 'yes' : `no (${c.lost} lost)`,
        c.sameTitles ? 'yes' : `no (${c.lostTitles} lost)`,
        `${median(rates[variant]).toFixed(0)} / ${median(rates.off).toFixed(0)} (${ratio.toFixed(2)})`,
        kinds(on.d.trapped),
      ]);
    }
  } finally {
    site.stop();
  }
}
const head = [
  'site',
  'crawl',
  'pages: it / off',
  'titles: it / off',
  'same URLs',
  'same titles',
  'pages/s: it / off (ratio)',
  'records with trap',
];
const widths = head.map((h, k) => Math.max(h.length, ...rows.map((r) => r[k].length)));
const line = (r) => `| ${r.map((c, k) => c.padEnd(widths[k])).join(' | ')} |`;
console.log(`\n${line(head)}\n| ${widths.map((w) => '-'.repeat(w)).join(' | ')} |`);
for (const r of rows) console.log(line(r));
console.log(
  `\nload at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}`,
);
if (opt.json) writeFileSync(opt.json, JSON.stringify(samples, null, 2));
if (!allSame) process.exitCode = 1;
