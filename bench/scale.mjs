#!/usr/bin/env node
// The drift guard of issue 47: the three ratios that say whether breadth and a Redis frontier
// cost more per page than one host on SQLite, measured in one sitting, with the commit measured.
//
//   npm run build && node bench/scale.mjs                  # 3 runs of each, medians
//   node bench/scale.mjs --hosts 20000 --pages 2            # the wide case
//   node bench/scale.mjs --cluster                          # + the crawl on a 3-master Redis Cluster
//   node bench/scale.mjs --only breadth,redis --json out.json
//
//   breadth    bench/breadth.mjs: --hosts × --pages at 500 ms per host against the same pages
//              on one host; ratio of median pages/s (goal >= 0.8, peak RSS <= 400 MiB)
//   redis      bench/run.mjs --redis: the demo crawl (nolat) on one Redis against SQLite, whole
//              processes; ratio of median pages/s (goal >= 0.95)
//   frontier   bench/frontier-scale.mjs --count: Redis against SQLite lease+ack (goal >= 0.4)
//              and enqueue (goal >= 0.5), median of --runs runs
// Every part prints its own output too; the summary at the end is what docs/performance.md keeps.
// A change that costs more than 3 % of any ratio says so in its commit.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    hosts: { type: 'string', default: '2000' },
    pages: { type: 'string', default: '5' },
    /** Pages of the demo crawl in the Redis / SQLite comparison. */
    'crawl-pages': { type: 'string', default: '5000' },
    /** URLs of the frontier-scale check. */
    count: { type: 'string', default: '200000' },
    cluster: { type: 'boolean', default: false },
    only: { type: 'string', default: 'breadth,redis,frontier' },
    dist: { type: 'string', default: join(root, 'dist') },
    json: { type: 'string' },
  },
});
const parts = new Set(opt.only.split(','));
const runs = opt.runs;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n === 0 ? Number.NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

function commit() {
  const git = (args) => spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
  const head = git(['rev-parse', '--short', 'HEAD']);
  return git(['status', '--porcelain', '--untracked-files=no']) === '' ? head : `${head}+changes`;
}

/** Runs a bench script, echoing its output; resolves with the whole stdout. */
function bench(script, args) {
  return new Promise((resolvePromise, reject) => {
    const p = spawn(process.execPath, [join(root, 'bench', script), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    p.once('error', reject);
    p.once('exit', (code) =>
      code === 0 ? resolvePromise(out) : reject(new Error(`${script} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

function number(out, re, what) {
  const m = re.exec(out);
  if (!m) throw new Error(`no ${what} in the output (${re})`);
  return Number(m[1]);
}

const measured = { commit: commit(), node: process.version, cores: cpus().length, loadAtStart: load() };
console.log(`scale bench: commit ${measured.commit}, node ${process.version}, load ${measured.loadAtStart}`);

if (parts.has('breadth')) {
  console.log(`\n#### breadth: ${opt.hosts} hosts × ${opt.pages} pages`);
  const out = await bench('breadth.mjs', [
    '--hosts',
    opt.hosts,
    '--pages',
    opt.pages,
    '--runs',
    runs,
    '--dist',
    opt.dist,
  ]);
  measured.breadth = {
    hosts: Number(opt.hosts),
    pagesPerHost: Number(opt.pages),
    ratio: number(
      out,
      /ratio breadth \/ single \(pages\/s\): ([\d.]+) \(ratio of medians\)/,
      'breadth ratio',
    ),
    peakRssMiB: number(out, /peak RSS breadth: (\d+) MiB \(the largest/, 'peak RSS'),
    perHostKiB: number(out, /memory per host: ([\d.-]+) KiB/, 'memory per host'),
  };
}

if (parts.has('redis')) {
  console.log(`\n#### the demo crawl on Redis${opt.cluster ? ' and a Redis Cluster' : ''} against SQLite`);
  const dir = mkdtempSync(join(tmpdir(), 'crawld-scale-'));
  try {
    const json = join(dir, 'run.json');
    await bench('run.mjs', [
      ...['--scenarios', 'nolat', '--no-baseline', '--redis', '--runs', runs],
      ...['--pages', opt['crawl-pages'], '--dist', opt.dist, '--json', json],
      ...(opt.cluster ? ['--cluster'] : []),
    ]);
    const sc = JSON.parse(readFileSync(json, 'utf8')).scenarios.nolat;
    measured.redis = {
      ratio: sc.redisOverSqlite.ofMedians,
      cpuEfficiency: sc.redisOverSqlite.cpuEfficiency,
      ...(sc.clusterOverSqlite
        ? { clusterRatio: sc.clusterOverSqlite.ofMedians, clusterOverRedis: sc.clusterOverRedis?.ofMedians }
        : {}),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (parts.has('frontier')) {
  const leaseAck = [];
  const enqueue = [];
  for (let i = 1; i <= Number(runs); i++) {
    console.log(`\n#### frontier-scale ${opt.count}, run ${i} of ${runs}`);
    const all = await bench('frontier-scale.mjs', [opt.count]);
    const out = all.slice(all.indexOf('== Redis / SQLite'));
    leaseAck.push(number(out, /^lease\+ack: ([\d.]+)/m, 'lease+ack ratio'));
    enqueue.push(number(out, /^enqueue:\s+([\d.]+)/m, 'enqueue ratio'));
  }
  measured.frontier = {
    count: Number(opt.count),
    leaseAck: median(leaseAck),
    enqueue: median(enqueue),
    leaseAckRuns: leaseAck,
    enqueueRuns: enqueue,
  };
}

measured.loadAtEnd = load();
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const verdict = (x, goal) => `${f2(x)} (goal >= ${goal}: ${x >= goal ? 'met' : 'NOT met'})`;
console.log(
  `\n== scale, commit ${measured.commit}, ${runs} run(s) each, load ${measured.loadAtStart} -> ${measured.loadAtEnd}`,
);
const { breadth, redis, frontier } = measured;
if (breadth)
  console.log(
    `breadth / one host, ${breadth.hosts} hosts × ${breadth.pagesPerHost}: ${verdict(breadth.ratio, 0.8)}; ` +
      `peak RSS ${breadth.peakRssMiB} MiB (goal <= 400), ${breadth.perHostKiB} KiB per host`,
  );
if (redis) {
  console.log(
    `Redis / SQLite, demo crawl: ${verdict(redis.ratio, 0.95)}; pages per CPU second ${f2(redis.cpuEfficiency)}`,
  );
  if (redis.clusterRatio !== undefined)
    console.log(
      `Redis Cluster / SQLite, demo crawl: ${f2(redis.clusterRatio)}; Redis Cluster / one Redis ${f2(redis.clusterOverRedis)}`,
    );
}
if (frontier)
  console.log(
    `frontier-scale ${frontier.count}, Redis / SQLite: lease+ack ${verdict(frontier.leaseAck, 0.4)}, enqueue ${verdict(frontier.enqueue, 0.5)}`,
  );
if (opt.json) writeFileSync(opt.json, `${JSON.stringify(measured, null, 2)}\n`);
