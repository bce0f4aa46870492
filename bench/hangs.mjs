#!/usr/bin/env node
// Hangs benchmark (issue 44): what a host that accepts requests and never answers them costs a
// crawl, against the same host answering everything.
//
//   npm run build && node bench/hangs.mjs [--runs 3] [--scenarios none,tail5,tail20,outage,slow,jump]
//     [--builds dist/crawld.mjs,/path/to/other/dist/crawld.mjs] [--extra JSON]
//
// Whole processes, as a user runs them: each crawl is `crawld crawl ORIGIN/ --once --config
// FILE` (no --http-port), pinned to core 1 when taskset exists; the site (test/helpers/
// fault-site.ts) runs in this process. The host answers each page in 50 ms and has a capacity
// of 8 (the n-th request in flight past 8 waits 50 ms x n / 8: ~160 pages/s at most, however
// many are in flight); a hung request takes no capacity.
//
// Scenarios:
//   none    no fault: the reference rate
//   tail5   every 20th page request hangs (a 5 % tail)          goal: >= 0.8 x none's rate
//   tail20  every 5th page request hangs (a 20 % tail)          goal: >= 0.5 x none's rate
//   outage  every request hangs from 2 s after the first for --outage-ms (6 s), then the host
//           answers again                                       goal: a second at >= 0.9 x the
//           pre-outage rate within 2 s of the recovery, the crawl ends <= 25 s after it began
//   slow    every page answered in 3 s (no capacity limit)     goal: no page lost, <= 2 % retried
//   jump    50 ms, then 1.5 s for good once --jump-after page requests (1,700) came (capacity 8
//           throughout: past the jump the host serves 5 pages/s at most, and the 300 pages left
//           take about two minutes)                             goal: no page lost, <= 2 % retried
//                                                               goal: no page lost, <= 2 % retried
//
// Per run: the crawl's own time (the summary's "done in"), pages ok and failed, retries (the
// summary's), requests that hung, the rate against none's median; for outage also the rate in
// the 1.5 s before it, the time from the recovery to the first request and to the first second at
// >= 0.9 x that rate. Then per build and scenario min / median / max. --builds alternates the
// builds run by run (compare within one sitting: the machine is shared and noisy).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pinned } from './demo-site.mjs';

const root = resolve(import.meta.dirname, '..');
const siteModule = join(root, 'dist', 'test', 'helpers', 'fault-site.js');
if (!existsSync(siteModule)) {
  console.error('dist/ missing: run npm run build first');
  process.exit(2);
}
const { startFaultSite } = await import(siteModule);

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    scenarios: { type: 'string', default: 'none,tail5,tail20,outage,slow,jump' },
    builds: { type: 'string', default: join(root, 'dist', 'crawld.mjs') },
    pages: { type: 'string', default: '2000' },
    'slow-pages': { type: 'string', default: '2000' },
    'jump-after': { type: 'string', default: '1700' },
    'outage-ms': { type: 'string', default: '6000' },
    'start-ms': { type: 'string', default: '2000' },
    /** Prints, for outage, when each request during it and in the 2 s after it arrived (s from its start). */
    trace: { type: 'boolean', default: false },
    /** Extra config (JSON) merged into each crawl's config file, e.g. '{"fetch":{"hedge":{"enabled":true}}}'. */
    extra: { type: 'string', default: '{}' },
  },
});
const RUNS = Number(values.runs);
const SCENARIOS = values.scenarios.split(',');
const BUILDS = values.builds.split(',').map((b) => resolve(b));
const OUTAGE_MS = Number(values['outage-ms']);
const START_MS = Number(values['start-ms']);
const EXTRA = JSON.parse(values.extra);

/** What each scenario's site does. */
function siteOf(scenario) {
  const base = { pages: Number(values.pages), latencyMs: 50, capacity: 8 };
  let first;
  let n = 0;
  const since = (atMs) => {
    first ??= atMs;
    return atMs - first;
  };
  switch (scenario) {
    case 'none':
      return { ...base };
    case 'tail5':
      return { ...base, fault: () => (++n % 20 === 0 ? 'hang' : 'ok') };
    case 'tail20':
      return { ...base, fault: () => (++n % 5 === 0 ? 'hang' : 'ok') };
    case 'outage':
      return {
        ...base,
        fault: (r) => {
          const t = since(r.atMs);
          return t >= START_MS && t < START_MS + OUTAGE_MS ? 'hang' : 'ok';
        },
        window: () => [first + START_MS, first + START_MS + OUTAGE_MS],
      };
    case 'slow':
      return { pages: Number(values['slow-pages']), latencyMs: 3000 };
    case 'jump': {
      let requests = 0;
      const after = Number(values['jump-after']);
      return {
        ...base,
        latencyMs: () => (requests >= after ? 1500 : 50),
        fault: () => {
          requests++;
          return 'ok';
        },
      };
    }
    default:
      throw new Error(`unknown scenario ${scenario}`);
  }
}

function crawl(build, origin, dir) {
  const config = join(dir, 'crawld.json');
  const { fetch: extraFetch, ...rest } = EXTRA;
  writeFileSync(
    config,
    JSON.stringify({
      dataDir: join(dir, 'data'),
      ...rest,
      fetch: { allowPrivateNetworks: true, ...extraFetch },
    }),
  );
  const argv = pinned(1, [process.execPath, build, 'crawl', `${origin}/`, '--once', '--config', config]);
  const child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => {
    out += d;
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  return new Promise((res) => child.on('exit', (code) => res({ code, out, err })));
}

/** Requests the site answered (or was answering) whose page was requested again later. */
function cutShort(log) {
  const last = new Map();
  let n = 0;
  for (const r of log) {
    if (last.get(r.path) === 'ok') n++;
    last.set(r.path, r.answer);
  }
  return n;
}

/** Pages answered per second in [fromMs, toMs) of the site's clock. */
const rate = (site, fromMs, toMs) =>
  site.log.filter((r) => r.answer === 'ok' && r.atMs >= fromMs && r.atMs < toMs).length /
  ((toMs - fromMs) / 1000);

async function run(build, scenario) {
  const { window, ...options } = siteOf(scenario);
  const site = await startFaultSite(options);
  const dir = mkdtempSync(join(tmpdir(), 'crawld-hangs-'));
  const { code, out, err } = await crawl(build, site.origin, dir);
  await site.close();
  rmSync(dir, { recursive: true, force: true });
  const m = /done in ([\d.]+) s: (\d+) ok, (\d+) failed, (\d+) skipped, (\d+) retries/.exec(out);
  if (code !== 0 || !m) {
    console.error(`  ${scenario}: exit ${code}\n${out}\n${err.slice(-2000)}`);
    return undefined;
  }
  const r = {
    seconds: Number(m[1]),
    ok: Number(m[2]),
    failed: Number(m[3]),
    retries: Number(m[5]),
    hung: site.log.filter((x) => x.answer === 'hang').length,
    requests: site.log.length,
    /** Requests answered that crawld gave up anyway (the page was requested again after an answer). */
    cutShort: cutShort(site.log),
    /** Times the host's breaker opened (crawld logs each change at warn level). */
    opens: (err.match(/circuit breaker state change[^\n]*"to":"open"/g) ?? []).length,
  };
  if (window) {
    const [from, to] = window();
    r.pre = rate(site, from - 1500, from);
    r.during = site.between(from, to);
    const after = site.log.find((x) => x.atMs >= to);
    r.firstAfterS = after ? (after.atMs - to) / 1000 : Number.NaN;
    let backAt = to;
    while (backAt < to + 60_000 && rate(site, backAt, backAt + 1000) < 0.9 * r.pre) backAt += 100;
    r.backS = (backAt - to) / 1000;
    if (values.trace) {
      const arrivals = site.log.filter((x) => x.atMs >= from - 500 && x.atMs < to + 2000);
      r.trace = arrivals.map(
        (x) => `${((x.atMs - from) / 1000).toFixed(2)}${x.answer === 'hang' ? 'h' : ''}`,
      );
    }
  }
  return r;
}

/** Pages written per second of the crawl's own time. */
const pagesPerS = (r) => r.ok / r.seconds;
const label = (build) => (BUILDS.length > 1 ? `[${BUILDS.indexOf(build) + 1}] ` : '');
const describe = (r, ref) =>
  `${r.seconds.toFixed(1)} s, ${r.ok} ok, ${r.failed} failed, ${r.retries} retries ` +
  `(${((100 * r.retries) / Math.max(1, r.ok)).toFixed(1)} %), ${r.hung} hung, ${r.cutShort} cut short, breaker opened ${r.opens} times` +
  (ref ? `, ${(pagesPerS(r) / ref).toFixed(2)} x none's rate` : '') +
  (r.pre !== undefined
    ? `; pre-outage ${r.pre.toFixed(0)}/s, ${r.during} requests during it, first request ` +
      `${r.firstAfterS.toFixed(2)} s and a second at >= 0.9 x ${r.backS.toFixed(1)} s after the recovery`
    : '');

console.log(
  `hangs bench: ${values.pages} pages, 50 ms, capacity 8; builds: ${BUILDS.map((b, i) => `[${i + 1}] ${b}`).join(', ')}`,
);
const results = new Map();
for (const scenario of SCENARIOS) {
  for (let i = 0; i < RUNS; i++) {
    for (const build of BUILDS) {
      const r = await run(build, scenario);
      if (!r) continue;
      const key = `${scenario}|${build}`;
      if (!results.has(key)) results.set(key, []);
      results.get(key).push(r);
      const ref = results.get(`none|${build}`);
      const refRate = ref && scenario !== 'slow' && scenario !== 'jump' ? median(ref.map(pagesPerS)) : 0;
      console.log(`  ${label(build)}${scenario.padEnd(6)} run ${i + 1}: ${describe(r, refRate)}`);
      if (r.trace) console.log(`    arrivals (s from the outage's start; h: hung): ${r.trace.join(' ')}`);
    }
  }
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
const spread = (xs, digits = 1) =>
  `${Math.min(...xs).toFixed(digits)} / ${median(xs).toFixed(digits)} / ${Math.max(...xs).toFixed(digits)}`;

console.log('\nmin / median / max');
for (const scenario of SCENARIOS) {
  for (const build of BUILDS) {
    const rs = results.get(`${scenario}|${build}`);
    if (!rs) continue;
    const ref = results.get(`none|${build}`);
    const refRate = ref ? median(ref.map(pagesPerS)) : undefined;
    const parts = [
      `time ${spread(rs.map((r) => r.seconds))} s`,
      `failed ${spread(
        rs.map((r) => r.failed),
        0,
      )}`,
      `retried ${spread(rs.map((r) => (100 * r.retries) / Math.max(1, r.ok)))} %`,
    ];
    if (refRate && scenario !== 'slow' && scenario !== 'jump')
      parts.push(
        `rate ${spread(
          rs.map((r) => pagesPerS(r) / refRate),
          2,
        )} x none`,
      );
    if (rs[0].pre !== undefined) {
      parts.push(
        `first request after recovery ${spread(
          rs.map((r) => r.firstAfterS),
          2,
        )} s`,
      );
      parts.push(`a second at >= 0.9 x ${spread(rs.map((r) => r.backS))} s after`);
    }
    console.log(`  ${label(build)}${scenario.padEnd(6)} ${parts.join(', ')}`);
  }
}
