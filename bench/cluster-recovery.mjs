#!/usr/bin/env node
// Cluster recovery benchmark:
//   npm run build && node bench/cluster-recovery.mjs [--lease-ms default,20000] [--runs 1]
//       [--pages 3000] [--latency-ms 50] [--kill-at 0.33] [--left 1000,1480] [--scenarios kill,newcomer]
//       [--cli PATH (another build's crawld.mjs, e.g. a copy of main's, to compare)]
//       [--fixed-limit N (every daemon at N requests in flight, no AIMD: the newcomer's share
//        then shows what the lease-ahead holds back, apart from its limit's ramp-up)]
//       [--rate N (rateLimits.global N pages/s, shared: the crawl goes at N/s whatever the
//        machine, so the pages left at the newcomer's start last left/N seconds)]
//       [--capacity K (the site serves K requests at a time, the rest queue: the site, not the
//        machine's CPU, sets the pace, as a real server does; each daemon's AIMD finds its share)]
//       [--extra JSON (merged into every daemon's config, e.g. '{"concurrency":{"global":128}}')]
//
// Real processes as a user runs them: a throwaway redis-server on 127.0.0.1, the demo site
// (`crawld site`), and `crawld run --config FILE --once` daemons sharing one Redis frontier
// (no --http-port). Two scenarios, each printed per run:
//
// kill: three daemons crawl the site; once --kill-at of the pages are written, one is
//   SIGKILLed. Prints the seconds from the kill to the end of the crawl (the last survivor's
//   exit), against the lease (leaseMs), and pages recorded twice (the victim's written but
//   unacked in-flight pages). The victim's leased tasks come back only when their leases
//   expire, so the figure is bounded by leaseMs plus the reaping delay plus the time the
//   survivors need for the rest: compare with leaseMs. `default` is crawld's default leaseMs.
// newcomer: two daemons crawl the site; a third starts when --left pages remain. Prints the
//   pages written when it had started, what the others held then (leased: in flight or
//   buffered) and what was left to lease, its pages, its share of the pages left then (a fair
//   share is about a third), the seconds from its start to its first page and to the end of the
//   crawl; then the median share over the runs. Without --rate or --capacity the three daemons,
//   the site and Redis share this machine's CPU, which sets the pace: what is left then lasts
//   about a second, most of it already in the others' requests and short look-ahead.
//
// Figures are wall-clock on this machine (loaded, 2 cores): the kill figure is dominated by
// leaseMs, which load does not stretch; the newcomer's share is a ratio within one run.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startRedis } from './redis-server.mjs';

const root = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    cli: { type: 'string', default: join(root, 'dist', 'crawld.mjs') },
    'lease-ms': { type: 'string', default: 'default,20000' },
    runs: { type: 'string', default: '1' },
    pages: { type: 'string', default: '3000' },
    'latency-ms': { type: 'string', default: '50' },
    'kill-at': { type: 'string', default: '0.33' },
    left: { type: 'string', default: '1000,1480' },
    scenarios: { type: 'string', default: 'kill,newcomer' },
    'fixed-limit': { type: 'string' },
    rate: { type: 'string' },
    capacity: { type: 'string' },
    extra: { type: 'string' },
  },
});
const RUNS = Number(values.runs);
const PAGES = Number(values.pages);
const LATENCY_MS = Number(values['latency-ms']);
const KILL_AT = Number(values['kill-at']);
const LEASES = values['lease-ms'].split(',').map((s) => (s === 'default' ? undefined : Number(s)));
const LEFTS = values.left.split(',').map(Number);
const SCENARIOS = values.scenarios.split(',');
const FIXED = values['fixed-limit'] === undefined ? undefined : Number(values['fixed-limit']);
const RATE = values.rate === undefined ? undefined : Number(values.rate);
const CAPACITY = values.capacity === undefined ? undefined : Number(values.capacity);
const EXTRA = values.extra === undefined ? {} : JSON.parse(values.extra);
const CLI = resolve(values.cli);
if (!existsSync(CLI)) {
  console.error(`${CLI} missing: run npm run build first`);
  process.exit(2);
}

function startCli(args) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const waiters = [];
  const onData = (d) => {
    out += d;
    for (const w of [...waiters]) w();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const exited = new Promise((r) => child.on('exit', (code, signal) => r(code ?? signal)));
  const waitFor = (re) =>
    new Promise((res, rej) => {
      const check = () => {
        const m = out.match(re);
        if (m) {
          waiters.splice(waiters.indexOf(check), 1);
          res(m);
        }
      };
      waiters.push(check);
      void exited.then(() =>
        setTimeout(() => rej(new Error(`exited before ${re}:\n${out.slice(-3000)}`)), 50),
      );
      check();
    });
  return { child, exited, waitFor, output: () => out };
}

function lines(path) {
  if (!existsSync(path)) return 0;
  const text = readFileSync(path, 'utf8');
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function urls(path) {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .flatMap((l) => {
      try {
        return [JSON.parse(l).url];
      } catch {
        return []; // a torn last line (SIGKILL mid-write)
      }
    });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
/** Polls pred; throws when one of `procs` exited meanwhile (a config refused, a crash). */
async function until(pred, stepMs = 20, procs = []) {
  while (!pred()) {
    for (const p of procs) {
      if (p.child.exitCode !== null && p.child.exitCode !== 0)
        throw new Error(`a daemon exited ${p.child.exitCode}:\n${p.output().slice(-3000)}`);
    }
    await sleep(stepMs);
  }
}

let runId = 0;
/** A daemon of one crawl: its config (like test/helpers/cluster.ts), started with --once. */
function startDaemon(dir, redisUrl, prefix, origin, i, leaseMs) {
  const id = `d${i}`;
  const dataDir = join(dir, id);
  const config = {
    dataDir,
    instanceId: id,
    log: { level: 'info' },
    frontier: { kind: 'redis', url: `${redisUrl}/0`, keyPrefix: prefix, ...(leaseMs ? { leaseMs } : {}) },
    fetch: {
      allowAddresses: [new URL(origin).host],
      // A build that refuses leaseMs <= fetch.totalTimeoutMs (60 s by default) gets a fetch
      // timeout below the lease (the demo site answers in milliseconds).
      ...(leaseMs !== undefined && leaseMs <= 60_000 ? { totalTimeoutMs: Math.floor(leaseMs / 2) } : {}),
    },
    jobs: [{ id: 'site', seeds: [`${origin}/`] }],
    ...(FIXED ? { concurrency: { adaptive: false, maxPerHost: FIXED, initialPerHost: FIXED } } : {}),
    ...(RATE ? { rateLimits: { global: { ratePerSec: RATE } } } : {}),
    ...EXTRA,
  };
  const file = join(dir, `${id}.json`);
  writeFileSync(file, JSON.stringify(config));
  const proc = startCli(['run', '--config', file, '--no-progress', '--once']);
  return { id, proc, results: join(dataDir, 'results.jsonl') };
}

const total = (members) => members.reduce((n, m) => n + lines(m.results), 0);

async function killRun(redisUrl, origin, leaseMs) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-recovery-'));
  const prefix = `kill${++runId}`;
  const t0 = Date.now();
  const members = [0, 1, 2].map((i) => startDaemon(dir, redisUrl, prefix, origin, i, leaseMs));
  const [victim, ...survivors] = members;
  await until(
    () => total(members) >= PAGES * KILL_AT,
    20,
    members.map((m) => m.proc),
  );
  victim.proc.child.kill('SIGKILL');
  const killedAt = Date.now();
  const doneAtKill = total(members);
  // When the survivors' pages stop growing but for the victim's leases: the last page written.
  let lastWrite = killedAt;
  let last = total(survivors);
  const watch = setInterval(() => {
    const n = total(survivors);
    if (n !== last) lastWrite = Date.now();
    last = n;
  }, 50);
  const codes = await Promise.all(survivors.map((m) => m.proc.exited));
  clearInterval(watch);
  const end = Date.now();
  const counts = new Map();
  for (const m of members) for (const u of urls(m.results)) counts.set(u, (counts.get(u) ?? 0) + 1);
  const twice = [...counts.values()].filter((n) => n > 1).length;
  const survivorTwice = (() => {
    const c = new Map();
    for (const m of survivors) for (const u of urls(m.results)) c.set(u, (c.get(u) ?? 0) + 1);
    return [...c.values()].filter((n) => n > 1).length;
  })();
  rmSync(dir, { recursive: true, force: true });
  return {
    codes,
    doneAtKill,
    killToEndS: (end - killedAt) / 1000,
    killToLastPageS: (lastWrite - killedAt) / 1000,
    crawlS: (end - t0) / 1000,
    pages: counts.size,
    twice,
    survivorTwice,
  };
}

async function newcomerRun(redisUrl, origin, left) {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-newcomer-'));
  const prefix = `new${++runId}`;
  const spawnedAt = Date.now();
  const members = [0, 1].map((i) => startDaemon(dir, redisUrl, prefix, origin, i, undefined));
  await members[0].proc.waitFor(/crawld started/);
  // A daemon takes a while to start (CLI loaded, frontier open), and the crawl goes on
  // meanwhile: the third is spawned when, at the current rate, `left` pages remain once it
  // has started.
  const startupMs = Date.now() - spawnedAt;
  const samples = [];
  await until(
    () => {
      const now = Date.now();
      const n = total(members);
      samples.push([now, n]);
      while (samples.length > 2 && samples[0][0] < now - 500) samples.shift();
      const [t0, n0] = samples[0];
      const rate = now > t0 ? (n - n0) / (now - t0) : 0;
      return n >= PAGES - left - rate * startupMs;
    },
    5,
    members.map((m) => m.proc),
  );
  const late = startDaemon(dir, redisUrl, prefix, origin, 2, undefined);
  // Counted from the moment the daemon has started (CLI loaded, frontier open): its own start-up
  // on a loaded machine says nothing about leasing.
  await late.proc.waitFor(/crawld started/);
  const startedAt = Date.now();
  const doneAtStart = total(members);
  // What the first two hold then (leased: in flight or buffered) and what is left to lease.
  const totals = execFileSync('redis-cli', ['-u', `${redisUrl}/0`, 'HGETALL', `{${prefix}}:totals`], {
    encoding: 'utf8',
  }).split('\n');
  const field = (f) => Number(totals[totals.indexOf(f) + 1] ?? Number.NaN);
  let firstAt;
  const watch = setInterval(() => {
    if (firstAt === undefined && lines(late.results) > 0) firstAt = Date.now();
  }, 10);
  const codes = await Promise.all([...members, late].map((m) => m.proc.exited));
  const restS = (Date.now() - startedAt) / 1000;
  clearInterval(watch);
  const mine = lines(late.results);
  const leftAtStart = PAGES - doneAtStart;
  rmSync(dir, { recursive: true, force: true });
  return {
    codes,
    doneAtStart,
    leftAtStart,
    heldAtStart: field('l'),
    pendingAtStart: field('n'),
    mine,
    share: mine / leftAtStart,
    firstS: firstAt === undefined ? Number.NaN : (firstAt - startedAt) / 1000,
    restS,
  };
}

const redis = await startRedis();
const site = startCli([
  'site',
  '--port',
  '0',
  '--pages',
  String(PAGES),
  '--latency-ms',
  String(LATENCY_MS),
  ...(CAPACITY ? ['--capacity', String(CAPACITY)] : []),
]);
const origin = (await site.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/))[1];
console.log(
  `cluster recovery bench: ${PAGES} pages, ${LATENCY_MS} ms latency, redis ${redis.version}, ${RUNS} run(s) each` +
    (FIXED ? `, every daemon at ${FIXED} in flight (no AIMD)` : '') +
    (RATE ? `, ${RATE} pages/s for all daemons together (rateLimits.global)` : '') +
    (CAPACITY ? `, the site serves ${CAPACITY} requests at a time (the rest queue)` : ''),
);
try {
  if (SCENARIOS.includes('kill')) {
    for (const leaseMs of LEASES) {
      for (let r = 0; r < RUNS; r++) {
        const k = await killRun(redis.url, origin, leaseMs);
        console.log(
          `  kill, leaseMs ${leaseMs ?? 'default'}: SIGKILL at ${k.doneAtKill} pages; ` +
            `${k.killToEndS.toFixed(1)} s from the kill to the end of the crawl ` +
            `(last page ${k.killToLastPageS.toFixed(1)} s after it; whole crawl ${k.crawlS.toFixed(1)} s); ` +
            `${k.pages} of ${PAGES} pages, ${k.twice} recorded twice (${k.survivorTwice} among survivors); ` +
            `exit codes ${k.codes.join(', ')}`,
        );
      }
    }
  }
  if (SCENARIOS.includes('newcomer')) {
    for (const left of LEFTS) {
      const shares = [];
      for (let r = 0; r < RUNS; r++) {
        const n = await newcomerRun(redis.url, origin, left);
        if (n.leftAtStart > 0) shares.push(n.share);
        console.log(
          `  newcomer, started with ${n.leftAtStart} of ${PAGES} pages left (asked ${left}): ` +
            `the others held ${n.heldAtStart}, ${n.pendingAtStart} to lease; ` +
            `fetched ${n.mine} = ${(n.share * 100).toFixed(1)} % of them (a third: 33.3 %); ` +
            `first page ${n.firstS.toFixed(2)} s after its start; the crawl ended ${n.restS.toFixed(1)} s after its start; ` +
            `exit codes ${n.codes.join(', ')}`,
        );
      }
      const pct = (x) => `${(100 * x).toFixed(1)} %`;
      const sorted = shares.sort((a, b) => a - b);
      if (sorted.length > 0)
        console.log(
          `  newcomer share (asked ${left} left): median ${pct(sorted[Math.floor((sorted.length - 1) / 2)])}, ` +
            `${pct(sorted[0])}-${pct(sorted.at(-1))} over ${sorted.length} run(s) with pages left at its start`,
        );
    }
  }
} finally {
  site.child.kill('SIGTERM');
  await site.exited;
  await redis.stop();
}
