#!/usr/bin/env node
// Throughput benchmark: crawld against a raw undici + cheerio(htmlparser2) baseline, in one run.
//
//   npm run bench                      # build, then both scenarios, 3 runs each
//   node bench/run.mjs --runs 5 --scenarios nolat --metrics
//
// For each scenario (nolat: --pages pages, no latency; lat: --lat-pages pages, --latency-ms
// latency) it starts the demo site (`crawld site`) pinned to core 0, then runs, interleaved,
// `--runs` times each:
//   baseline   bench/baseline.mjs: undici Pool at fixed concurrency, Set dedupe, same extraction.
//              --concurrency (nolat) and --lat-concurrency (lat) take a list; with several values
//              each runs as baseline@C and crawld is compared with the best of them ("the
//              baseline at its best fixed concurrency"; at 50 ms it gains up to ~200 here)
//   crawld     `crawld run --once` with the same extraction (h1.title text, span.price number,
//              all links followed), defaults otherwise: adaptive concurrency, SQLite frontier,
//              results file, metrics on and served over HTTP, log level info
//   crawld-off (with --metrics) the same with metrics.enabled false, no HTTP server, log level error
//   crawld-b   (with --dist-b DIR) the same config as crawld run by another build, for before/after
//   crawld-redis (with --redis) the same crawl on a Redis frontier: a throwaway redis-server on
//              a free 127.0.0.1 port, core 0, emptied before each run; with --dist-b also
//              crawld-redis-b, the other build on it. Each Redis run prints Redis's commands and
//              bytes per page (its counters reset before the run)
//   crawld-cluster (with --cluster) the same on a three-master Redis Cluster (no replicas), its
//              nodes on core 0, emptied before each run; ratio against crawld-redis when both run
// each pinned to core 1 and timed as a whole process (spawn to exit). pages/s = pages / wall
// seconds. Peak RSS comes from /usr/bin/time -v, else from polling /proc/PID/status (VmHWM).
// Ratios are computed within the run: the machine is shared and noisy, absolute figures are not
// comparable between sittings.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { canPin, demoJobYaml, pinned, startDemoSite } from './demo-site.mjs';
import { haveRedisServer, startRedis, startRedisCluster } from './redis-server.mjs';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    pages: { type: 'string', default: '20000' },
    'lat-pages': { type: 'string', default: '3000' },
    'latency-ms': { type: 'string', default: '50' },
    concurrency: { type: 'string', default: '64' },
    'lat-concurrency': { type: 'string', default: '64,128,200' },
    scenarios: { type: 'string', default: 'nolat,lat' },
    metrics: { type: 'boolean', default: false },
    'no-baseline': { type: 'boolean', default: false },
    /** crawld with adaptive: false at this per-host concurrency instead of the defaults. */
    'crawld-fixed': { type: 'string' },
    /** crawld adaptive, with maxPerHost (and connectionsPerHost) raised to this. */
    'crawld-max': { type: 'string' },
    /** Adds crawld-redis: the same crawl on a Redis frontier (a throwaway redis-server on core 0). */
    redis: { type: 'boolean', default: false },
    /** Adds crawld-cluster: the same crawl on a three-master Redis Cluster. */
    cluster: { type: 'boolean', default: false },
    /** Another build of crawld (a dist/ directory), e.g. to compare before/after. */
    dist: { type: 'string', default: join(root, 'dist') },
    /** A second build, run as variant crawld-b interleaved with the first (same config as crawld). */
    'dist-b': { type: 'string' },
    json: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (opt.help) {
  console.log(
    'node bench/run.mjs [--runs N] [--pages N] [--lat-pages N] [--latency-ms L] [--concurrency C,...]\n' +
      '  [--lat-concurrency C,...]' +
      '  [--scenarios nolat,lat] [--metrics] [--no-baseline] [--crawld-fixed C | --crawld-max C] [--dist DIR] [--dist-b DIR] [--redis] [--cluster] [--json OUT]',
  );
  process.exit(0);
}
const RUNS = Number(opt.runs);
const concList = (s) => {
  const list = s.split(',').map((x) => Number(x.trim()));
  if (list.length === 0 || list.some((c) => !Number.isInteger(c) || c < 1)) {
    console.error(`bad concurrency list ${JSON.stringify(s)}`);
    process.exit(2);
  }
  return list;
};
// The bundle that ships (dist/crawld.mjs); builds older than it have only dist/src/cli.js.
const entry = (dir) => {
  const bundle = join(resolve(dir), 'crawld.mjs');
  return existsSync(bundle) ? bundle : join(resolve(dir), 'src/cli.js');
};
const cli = entry(opt.dist);
const cliB = opt['dist-b'] ? entry(opt['dist-b']) : undefined;
for (const c of [cli, cliB]) {
  if (c !== undefined && !existsSync(c)) {
    console.error(`${c} missing: run \`npm run build\` first`);
    process.exit(2);
  }
}
const scenarios = {
  nolat: { pages: Number(opt.pages), latencyMs: 0, baselineConc: concList(opt.concurrency) },
  lat: {
    pages: Number(opt['lat-pages']),
    latencyMs: Number(opt['latency-ms']),
    baselineConc: concList(opt['lat-concurrency']),
  },
};
const chosen = opt.scenarios.split(',').map((s) => s.trim());
for (const s of chosen) {
  if (!(s in scenarios)) {
    console.error(`unknown scenario ${s} (nolat, lat)`);
    process.exit(2);
  }
}

const gnuTime = existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-v', 'true']).status === 0;

/** The demo site in a child process pinned to core 0; resolves with its origin. */
function startSite({ pages, latencyMs }) {
  const args = ['--pages', String(pages)];
  if (latencyMs > 0) args.push('--latency-ms', String(latencyMs));
  return startDemoSite(cli, args);
}

/**
 * Runs argv pinned to core 1 and times it from spawn to exit. Returns wall seconds, the peak
 * RSS in MB, stdout (its tail) and the exit code.
 */
function timed(argv) {
  const full = pinned(1, argv);
  const cmd = gnuTime ? ['/usr/bin/time', '-v', ...full] : full;
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const child = spawn(cmd[0], cmd.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    // Keep only the tail: crawld at log level info writes a line per notable event.
    child.stdout.on('data', (d) => {
      out = (out + d).slice(-20_000);
    });
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-20_000);
    });
    let hwmKb = 0;
    const poll = gnuTime
      ? undefined
      : setInterval(() => {
          try {
            const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
            if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
          } catch {
            // exited between polls
          }
        }, 50);
    child.once('error', rej);
    child.once('close', (code) => {
      const secs = (performance.now() - t0) / 1000;
      if (poll) clearInterval(poll);
      const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(err);
      const rssMb = (m ? Number(m[1]) : hwmKb) / 1024;
      // CPU time is far less sensitive than wall time to other work on the machine.
      const user = /User time \(seconds\): ([\d.]+)/.exec(err);
      const sys = /System time \(seconds\): ([\d.]+)/.exec(err);
      const cpuSecs = user && sys ? Number(user[1]) + Number(sys[1]) : Number.NaN;
      res({ secs, cpuSecs, rssMb, out, err, code });
    });
  });
}

async function runBaseline(site, pages, concurrency) {
  const r = await timed([
    process.execPath,
    join(root, 'bench/baseline.mjs'),
    site.url,
    String(pages),
    String(concurrency),
  ]);
  const line = r.out.split('\n').find((l) => l.startsWith('RESULT '));
  if (r.code !== 0 || !line) throw new Error(`baseline failed (${r.code}): ${r.err.slice(-2000)}`);
  const res = JSON.parse(line.slice(7));
  return { pages: res.pages, errors: res.errors, secs: r.secs, cpuSecs: r.cpuSecs, rssMb: r.rssMb };
}

function crawldConfig(site, variant) {
  const on = variant !== 'crawld-off';
  // The connection pool must be as wide as the concurrency, or undici queues the excess.
  const fixed = opt['crawld-fixed'] ? Number(opt['crawld-fixed']) : undefined;
  const max = opt['crawld-max'] ? Number(opt['crawld-max']) : undefined;
  const width = fixed ?? max;
  const concurrency =
    width === undefined ? '' : `concurrency: { adaptive: ${fixed === undefined}, maxPerHost: ${width} }\n`;
  const pool = width === undefined ? '' : `, connectionsPerHost: ${width}`;
  return (
    `log: { level: ${on ? 'info' : 'error'} }\n` +
    `http: { port: ${on ? 0 : 'null'} }\n` +
    // Left out when on (the default), so that builds older than the switch run too.
    (on ? '' : 'metrics: { enabled: false }\n') +
    `fetch: { allowAddresses: ['127.0.0.1']${pool} }\n` +
    concurrency +
    demoJobYaml(site.url)
  );
}

async function runCrawld(site, variant) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-'));
  try {
    const config = join(dir, 'crawld.yaml');
    writeFileSync(config, crawldConfig(site, variant));
    const bin = variant === 'crawld-b' || variant === 'crawld-redis-b' ? cliB : cli;
    const argv = [process.execPath, bin, 'run', '--config', config, '--data-dir', join(dir, 'data')];
    const onRedis = variant.startsWith('crawld-redis');
    if (onRedis) {
      await redisAdmin.flushall();
      await redisAdmin.config('RESETSTAT');
      argv.push('--frontier', redis.url);
    }
    if (variant === 'crawld-cluster') {
      cluster.flush();
      argv.push('--frontier', cluster.url);
    }
    const r = await timed([...argv, '--once', '--no-progress']);
    const wire = onRedis ? await redisWire() : undefined;
    const m = /crawld: done in [\d.]+ s: (\d+) ok, (\d+) failed/.exec(r.out);
    if (r.code !== 0 || !m) throw new Error(`crawld failed (${r.code}): ${(r.err || r.out).slice(-2000)}`);
    const results = readFileSync(join(dir, 'data/results.jsonl'), 'utf8').split('\n').filter(Boolean).length;
    return {
      pages: Number(m[1]),
      errors: Number(m[2]),
      results,
      secs: r.secs,
      cpuSecs: r.cpuSecs,
      rssMb: r.rssMb,
      ...wire,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Redis's work in the run just ended (its counters reset before it): commands by name (a
 *  script's own commands included), and bytes in and out. */
async function redisWire() {
  const info = await redisAdmin.info('all');
  const field = (name) => Number(new RegExp(`^${name}:(\\d+)`, 'm').exec(info)?.[1] ?? Number.NaN);
  const byCommand = {};
  for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+)/gm)) byCommand[m[1]] = Number(m[2]);
  // The INFO just sent is not the crawl's.
  byCommand.info = (byCommand.info ?? 1) - 1;
  return {
    redisByCommand: byCommand,
    redisInBytes: field('total_net_input_bytes'),
    redisOutBytes: field('total_net_output_bytes'),
  };
}

const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => {
  const s = sorted(xs);
  const n = s.length;
  return n === 0 ? Number.NaN : n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const f0 = (x) => (Number.isFinite(x) ? x.toFixed(0) : '-');
const f2 = (x) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const mmm = (xs) => `${f0(Math.min(...xs))} / ${f0(median(xs))} / ${f0(Math.max(...xs))}`;

/** baseline, or baseline@C per value when the scenario's list has several. */
const baselineVariants = (sc) =>
  opt['no-baseline']
    ? []
    : sc.baselineConc.length === 1
      ? ['baseline']
      : sc.baselineConc.map((c) => `baseline@${c}`);
const crawldVariants = [
  'crawld',
  ...(opt.metrics ? ['crawld-off'] : []),
  ...(cliB ? ['crawld-b'] : []),
  ...(opt.redis ? ['crawld-redis'] : []),
  ...(opt.cluster ? ['crawld-cluster'] : []),
  ...(opt.redis && cliB ? ['crawld-redis-b'] : []),
];
if ((opt.redis || opt.cluster) && !haveRedisServer()) {
  console.error(
    '--redis and --cluster need redis-server and redis-cli on PATH (scripts/setup-test-env.sh installs them)',
  );
  process.exit(2);
}
/** With --redis: the server, and a client that empties it before each crawld-redis run. */
const redis = opt.redis ? await startRedis() : undefined;
// A failed run must not leave the server behind.
const cluster = opt.cluster ? await startRedisCluster() : undefined;
process.once('exit', () => {
  redis?.kill();
  cluster?.kill();
});
const redisAdmin = redis ? new (await import('ioredis')).Redis(redis.url) : undefined;
console.log(
  `crawld bench: ${cpus().length} cores, node ${process.version}, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, ` +
    `site on core 0 and crawlers on core 1: ${canPin ? 'yes' : 'no (taskset missing)'}, ` +
    `peak RSS from ${gnuTime ? '/usr/bin/time -v' : '/proc VmHWM polling'}`,
);
console.log(
  `runs ${RUNS}, baseline concurrency ${opt.concurrency} (nolat), ${opt['lat-concurrency']} (lat), ` +
    `crawld ${cli}${cliB ? `, crawld-b ${cliB}` : ''}`,
);

const report = { machine: { cores: cpus().length, node: process.version, pinned: canPin }, scenarios: {} };
for (const name of chosen) {
  const sc = scenarios[name];
  const site = await startSite(sc);
  console.log(`\n== ${name}: ${sc.pages} pages, ${sc.latencyMs} ms latency, site ${site.url}`);
  const variants = [...baselineVariants(sc), ...crawldVariants];
  const samples = Object.fromEntries(variants.map((v) => [v, []]));
  try {
    for (let i = 0; i < RUNS; i++) {
      for (const v of variants) {
        const r = v.startsWith('baseline')
          ? await runBaseline(site, sc.pages, v === 'baseline' ? sc.baselineConc[0] : Number(v.slice(9)))
          : await runCrawld(site, v);
        r.pagesPerS = r.pages / r.secs;
        r.cpuMsPerPage = (1000 * r.cpuSecs) / r.pages;
        samples[v].push(r);
        let extra = r.results !== undefined ? `, ${r.results} results` : '';
        if (r.redisByCommand) {
          const per = (n) => (n / r.pages).toFixed(2);
          const cmds = Object.entries(r.redisByCommand).sort((a, b) => b[1] - a[1]);
          const total = cmds.reduce((s, [, n]) => s + n, 0);
          const top = cmds.filter(([, n]) => n / r.pages >= 0.01).map(([c, n]) => `${c} ${per(n)}`);
          extra +=
            `\n      redis per page: ${per(total)} commands (${top.join(', ')}), ` +
            `${per(r.redisInBytes)} bytes in, ${per(r.redisOutBytes)} bytes out`;
        }
        console.log(
          `  run ${i + 1} ${v.padEnd(14)} ${String(r.pages).padStart(6)} pages ${r.secs.toFixed(2).padStart(7)} s ` +
            `${f0(r.pagesPerS).padStart(6)} pages/s  ${f2(r.cpuMsPerPage)} CPU ms/page  peak RSS ${f0(r.rssMb)} MB${extra}` +
            (r.pages !== sc.pages || r.errors ? `  (expected ${sc.pages} pages, ${r.errors} errors)` : ''),
        );
      }
    }
  } finally {
    await site.stop();
  }
  console.log(
    `\n  ${'variant'.padEnd(15)} pages/s min / median / max   CPU ms/page min / median / max   peak RSS MB min / median / max`,
  );
  for (const v of variants) {
    const rates = samples[v].map((r) => r.pagesPerS);
    const cpu = samples[v].map((r) => r.cpuMsPerPage);
    const rss = samples[v].map((r) => r.rssMb);
    const cpuMmm = `${f2(Math.min(...cpu))} / ${f2(median(cpu))} / ${f2(Math.max(...cpu))}`;
    console.log(`  ${v.padEnd(15)} ${mmm(rates).padEnd(26)} ${cpuMmm.padEnd(32)} ${mmm(rss)}`);
  }
  const ratio = (a, b) => {
    const xs = samples[a].map((r, i) => r.pagesPerS / samples[b][i].pagesPerS);
    const med = median(samples[a].map((r) => r.pagesPerS)) / median(samples[b].map((r) => r.pagesPerS));
    // Pages per CPU second, a over b: the efficiency ratio, robust to a busy machine.
    const cpu = median(samples[b].map((r) => r.cpuMsPerPage)) / median(samples[a].map((r) => r.cpuMsPerPage));
    return { ofMedians: med, perRun: xs, cpuEfficiency: cpu };
  };
  const out = { ...sc, samples };
  if (!samples.baseline && sc.baselineConc.length > 1 && !opt['no-baseline']) {
    // The best fixed concurrency by median pages/s is the one crawld is held to.
    const best = variants
      .filter((v) => v.startsWith('baseline@'))
      .reduce((a, b) =>
        median(samples[b].map((r) => r.pagesPerS)) > median(samples[a].map((r) => r.pagesPerS)) ? b : a,
      );
    samples.baseline = samples[best];
    out.bestBaseline = best;
    console.log(`  best fixed concurrency of the baseline: ${best.slice(9)}`);
  }
  if (samples.baseline) {
    out.crawldOverBaseline = ratio('crawld', 'baseline');
    const r = out.crawldOverBaseline;
    console.log(
      `  crawld / ${out.bestBaseline ?? 'baseline'}: ${f2(r.ofMedians)} (ratio of medians); per run ${r.perRun.map(f2).join(', ')}; ` +
        `pages per CPU second ${f2(r.cpuEfficiency)}`,
    );
  }
  if (samples['crawld-off']) {
    out.onOverOff = ratio('crawld', 'crawld-off');
    const r = out.onOverOff;
    console.log(
      `  metrics+logging on / off: ${f2(r.ofMedians)} (cost ${((1 - r.ofMedians) * 100).toFixed(1)}%); ` +
        `per run ${r.perRun.map(f2).join(', ')}; pages per CPU second ${f2(r.cpuEfficiency)}`,
    );
  }
  if (samples['crawld-b']) {
    out.aOverB = ratio('crawld', 'crawld-b');
    const r = out.aOverB;
    console.log(
      `  crawld (--dist) / crawld-b (--dist-b): ${f2(r.ofMedians)}; per run ${r.perRun.map(f2).join(', ')}; ` +
        `pages per CPU second ${f2(r.cpuEfficiency)}`,
    );
  }
  if (samples['crawld-redis']) {
    out.redisOverSqlite = ratio('crawld-redis', 'crawld');
    const r = out.redisOverSqlite;
    console.log(
      `  crawld-redis / crawld (Redis / SQLite frontier): ${f2(r.ofMedians)}; per run ${r.perRun.map(f2).join(', ')}; ` +
        `pages per CPU second ${f2(r.cpuEfficiency)}`,
    );
  }
  if (samples['crawld-cluster']) {
    out.clusterOverSqlite = ratio('crawld-cluster', 'crawld');
    const r = out.clusterOverSqlite;
    console.log(
      `  crawld-cluster / crawld (Redis Cluster / SQLite frontier): ${f2(r.ofMedians)}; per run ${r.perRun.map(f2).join(', ')}; ` +
        `pages per CPU second ${f2(r.cpuEfficiency)}`,
    );
    if (samples['crawld-redis']) {
      out.clusterOverRedis = ratio('crawld-cluster', 'crawld-redis');
      const c = out.clusterOverRedis;
      console.log(
        `  crawld-cluster / crawld-redis (Redis Cluster / one Redis): ${f2(c.ofMedians)}; per run ${c.perRun.map(f2).join(', ')}; ` +
          `pages per CPU second ${f2(c.cpuEfficiency)}`,
      );
    }
  }
  if (samples['crawld-redis-b']) {
    out.redisOverSqliteB = ratio('crawld-redis-b', 'crawld-b');
    const r = out.redisOverSqliteB;
    console.log(
      `  crawld-redis-b / crawld-b (--dist-b, Redis / SQLite frontier): ${f2(r.ofMedians)}; per run ${r.perRun.map(f2).join(', ')}; ` +
        `pages per CPU second ${f2(r.cpuEfficiency)}`,
    );
  }
  report.scenarios[name] = out;
}
redisAdmin?.disconnect();
await redis?.stop();
await cluster?.stop();
if (opt.json) writeFileSync(opt.json, `${JSON.stringify(report, null, 2)}\n`);
