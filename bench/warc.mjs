#!/usr/bin/env node
// The cost of WARC archives on the demo crawl: crawld with and without a warc sink, in one
// sitting, interleaved (off, on, off, on, ...), each a whole `crawld run --once` process pinned
// to core 1 with the demo site on core 0.
//
//   npm run build && node bench/warc.mjs                 # 5000 pages, 3 runs each
//   node bench/warc.mjs --pages 20000 --runs 5 --json out.json
//
// Per run: pages/s (pages / wall seconds from spawn to exit), CPU ms per page (user + sys of
// /usr/bin/time -v, all threads), the main thread's (the event loop's) CPU ms per page from
// /proc/PID/task/PID/stat, and with the sink the WARC bytes per page
// (the .warc.gz files over pages) and the .cdxj bytes per page. The summary gives min / median /
// max of each and the ratio of the medians, WARC on over off (issue 45's bar: >= 0.8x pages/s).
// --gzip-level 1,6 runs one WARC variant per level (warc@1 ...), interleaved with off.
// --dist-b DIR adds each WARC variant of a second build (warc@1/b ...), in the same rounds: a
// before/after in one sitting. --unpinned runs crawld on any core (as users run it; the site
// stays on core 0), so work crawld hands to libuv's threadpool can use the other core.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { canPin, demoJobYaml, pinned, startDemoSite } from './demo-site.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    pages: { type: 'string', default: '5000' },
    runs: { type: 'string', default: '3' },
    /** gzipLevel of each WARC variant, a comma list: one variant per level (warc@L). */
    'gzip-level': { type: 'string', default: '1' },
    dist: { type: 'string', default: join(root, 'dist') },
    'dist-b': { type: 'string' },
    unpinned: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const cli = join(opt.dist, 'crawld.mjs');
// --dist-b X,Y: one more WARC variant per build (warc@1/b, warc@1/c).
const others = (opt['dist-b'] ?? '').split(',').filter(Boolean);
const cliB = others.map((d) => join(d, 'crawld.mjs'));
for (const c of [cli, ...cliB]) {
  if (!existsSync(c)) throw new Error(`${c} missing: run npm run build first`);
}
const gnuTime = existsSync('/usr/bin/time');

/** The crawld process under `time` (its child) or the spawned pid itself (taskset execs). */
function crawldPid(pid) {
  if (!gnuTime) return pid;
  try {
    return (
      Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ')[0]) || undefined
    );
  } catch {
    return undefined;
  }
}

/** CPU seconds of the process's main thread (the event loop) so far, from /proc; NaN if gone. */
function loopCpuSecs(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

function timed(argv) {
  const full = opt.unpinned ? argv : pinned(1, argv);
  const cmd = gnuTime ? ['/usr/bin/time', '-v', ...full] : full;
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-20_000);
    });
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-20_000);
    });
    // The main thread's CPU, sampled until the process ends: the last sample misses at most
    // one interval. Without threadpool work it is most of the process's CPU.
    let loopSecs = Number.NaN;
    const sampler = setInterval(() => {
      const pid = crawldPid(child.pid);
      const secs = pid ? loopCpuSecs(pid) : Number.NaN;
      if (Number.isFinite(secs)) loopSecs = secs;
    }, 50);
    child.once('error', rej);
    child.once('close', (code) => {
      clearInterval(sampler);
      const secs = (performance.now() - t0) / 1000;
      const user = /User time \(seconds\): ([\d.]+)/.exec(err);
      const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
      const cpuSecs = user && sys ? Number(user[1]) + Number(sys[1]) : Number.NaN;
      res({ secs, cpuSecs, loopSecs, out, err, code });
    });
  });
}

const sizeOf = (dir, suffix) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => n.endsWith(suffix))
        .reduce((n, f) => n + statSync(join(dir, f)).size, 0)
    : 0;

async function run(site, { level, b }) {
  const warc = level !== undefined;
  const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-warc-'));
  try {
    const config = join(dir, 'crawld.yaml');
    const sinks = warc
      ? `sinks:\n  - kind: jsonl\n  - kind: warc\n    gzipLevel: ${level}\n`
      : 'sinks:\n  - kind: jsonl\n';
    writeFileSync(
      config,
      `log: { level: error }\nfetch: { allowAddresses: ['127.0.0.1'] }\n${sinks}${demoJobYaml(site.url)}`,
    );
    const r = await timed([
      process.execPath,
      b === undefined ? cli : cliB[b],
      'run',
      '--config',
      config,
      '--data-dir',
      join(dir, 'data'),
      '--once',
      '--no-progress',
    ]);
    const m = /crawld: done in [\d.]+ s: (\d+) ok, (\d+) failed/.exec(r.out);
    if (r.code !== 0 || !m) throw new Error(`crawld failed (${r.code}): ${(r.err || r.out).slice(-2000)}`);
    const pages = Number(m[1]);
    const warcDir = join(dir, 'data', 'warc');
    return {
      variant: warc ? `warc@${level}${b === undefined ? '' : `/${'bcdefgh'[b]}`}` : 'off',
      pages,
      secs: r.secs,
      pagesPerS: pages / r.secs,
      cpuMsPerPage: (1000 * r.cpuSecs) / pages,
      loopCpuMsPerPage: (1000 * r.loopSecs) / pages,
      warcBytesPerPage: sizeOf(warcDir, '.warc.gz') / pages,
      cdxjBytesPerPage: sizeOf(warcDir, '.cdxj') / pages,
      jsonlBytesPerPage: statSync(join(dir, 'data', 'results.jsonl')).size / pages,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-');
const mmm = (xs, d = 0) => `${f(Math.min(...xs), d)} / ${f(median(xs), d)} / ${f(Math.max(...xs), d)}`;

console.log(
  `crawld WARC bench: ${cpus().length} cores, node ${process.version}, load ${loadavg()
    .map((x) => x.toFixed(2))
    .join(
      ' ',
    )}, ${canPin ? `site on core 0, crawler ${opt.unpinned ? 'on any core' : 'on core 1'}` : 'not pinned'}, ${opt.pages} pages, gzipLevel ${opt['gzip-level']}${others.map((d, i) => `, ${'bcdefgh'[i]}: ${d}`).join('')}`,
);
const levels = opt['gzip-level'].split(',').map(Number);
const plan = [
  {},
  ...levels.map((level) => ({ level })),
  ...cliB.flatMap((_, b) => levels.map((level) => ({ level, b }))),
];
const site = await startDemoSite(cli, ['--pages', opt.pages]);
const results = [];
try {
  for (let i = 0; i < Number(opt.runs); i++) {
    for (const p of plan) {
      const warc = p.level !== undefined;
      const r = await run(site, p);
      results.push(r);
      console.log(
        `  ${r.variant.padEnd(9)} ${f(r.pagesPerS).padStart(6)} pages/s  ${f(r.cpuMsPerPage, 3)} CPU ms/page (loop ${f(r.loopCpuMsPerPage, 3)})` +
          (warc ? `  WARC ${f(r.warcBytesPerPage)} B/page, CDXJ ${f(r.cdxjBytesPerPage)} B/page` : '') +
          `  (${r.pages} pages, results.jsonl ${f(r.jsonlBytesPerPage)} B/page)`,
      );
    }
  }
} finally {
  await site.stop();
}
const of = (v, k) => results.filter((r) => r.variant === v).map((r) => r[k]);
console.log(
  '\n  variant   pages/s min/med/max    CPU ms/page min/med/max  loop CPU ms/page min/med/max  ratio of medians (pages/s, CPU/page, loop CPU/page)',
);
const variants = [...new Set(results.map((r) => r.variant))];
const summary = {};
for (const v of variants) {
  const ratio = median(of(v, 'pagesPerS')) / median(of('off', 'pagesPerS'));
  const cpuRatio = median(of(v, 'cpuMsPerPage')) / median(of('off', 'cpuMsPerPage'));
  const loopRatio = median(of(v, 'loopCpuMsPerPage')) / median(of('off', 'loopCpuMsPerPage'));
  summary[v] = { ratio, cpuRatio, loopRatio, warcBytesPerPage: median(of(v, 'warcBytesPerPage')) };
  console.log(
    `  ${v.padEnd(9)} ${mmm(of(v, 'pagesPerS')).padEnd(22)} ${mmm(of(v, 'cpuMsPerPage'), 3).padEnd(24)} ${mmm(of(v, 'loopCpuMsPerPage'), 3).padEnd(29)}` +
      (v === 'off'
        ? ''
        : ` ${ratio.toFixed(2)}x, ${cpuRatio.toFixed(2)}x, ${loopRatio.toFixed(2)}x; WARC ${f(summary[v].warcBytesPerPage)} B/page`),
  );
}
console.log(
  `  (issue 45's bar: WARC on >= 0.80x the pages/s of off; CDXJ ${f(median(of(variants[1], 'cdxjBytesPerPage')))} B/page)`,
);
if (opt.json) writeFileSync(opt.json, JSON.stringify({ results, summary }, null, 2));
