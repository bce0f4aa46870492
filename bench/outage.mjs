#!/usr/bin/env node
// Outage benchmark:
//   npm run build && node bench/outage.mjs [--runs 5] [--pages 2000] [--outage-ms 6000]
//
// One host serving ~160 pages/s (100 ms per response, 16 in flight at most: crawld's adaptive
// limit capped at concurrency.maxPerHost 16) goes down 2 s after its first request, for
// --outage-ms, then recovers. Four kinds of outage: every request answered 500, every
// connection reset (both trip the breaker), one request in four reset ('flaky': never five
// failures in a row nor half of the calls, so the breaker stays closed while the drops cut the
// limit), and every request accepted and never answered ('hang': each is given up at the
// host's learned timeout, docs/control-plane.md, and those trip the breaker; not in the default
// kinds). The crawl is `--once` with crawld's defaults otherwise.
//
// Per run it prints the requests the host received during the outage, the time from recovery
// to the first request after it, the pages/s in the 1.5 s before the outage and 5–10 s after
// recovery (and their ratio), how long after the recovery the first 1 s at >= 0.9 x the
// pre-outage rate began, the time of the last request (from the first), the total crawl time
// and the pages written; then the median and worst of the runs. Goals: at most 50 requests
// during a 6 s outage (not for 'flaky'); first request within 3 s of recovery; back at
// >= 0.9 x the pre-outage rate within 5 s of recovery, and so 5–10 s after it; crawl within
// 25 s (ideal: 2000 pages / 160 per s + 6 s ≈ 19 s); every page written (no task
// dead-lettered because of the breaker).
//
// --trace prints, per run, the pages/s of each second from 2 s before the outage to 10 s
// after it, with the host's limit in that second. --capacity K gives the host a knee instead
// (latency grows past K in flight; with --max-per-host 256 the limit, not the cap, holds it).
//
// The site runs in this process (it is cheap at 160 pages/s); on a loaded machine the absolute
// times stretch, the counts much less.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const dist = (p) => join(root, 'dist', p);
if (!existsSync(dist('test/helpers/fault-site.js'))) {
  console.error('dist/ missing: run `npx tsc -p tsconfig.json` (or npm run build) first');
  process.exit(2);
}
const { createDaemon } = await import(dist('src/daemon/daemon.js'));
const { validateConfig } = await import(dist('src/config/config.js'));
const { startFaultSite } = await import(dist('test/helpers/fault-site.js'));

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    pages: { type: 'string', default: '2000' },
    'outage-ms': { type: 'string', default: '6000' },
    'start-ms': { type: 'string', default: '2000' },
    kinds: { type: 'string', default: '5xx,reset,flaky' },
    trace: { type: 'boolean', default: false },
    /** The host's own capacity in flight (latency grows past it); unset: none. */
    capacity: { type: 'string' },
    'max-per-host': { type: 'string', default: '16' },
  },
});
const RUNS = Number(values.runs);
const PAGES = Number(values.pages);
const OUTAGE_MS = Number(values['outage-ms']);
const START_MS = Number(values['start-ms']);
const KINDS = values.kinds.split(',');
const TRACE = values.trace;
const CAPACITY = values.capacity === undefined ? undefined : Number(values.capacity);
const MAX_PER_HOST = Number(values['max-per-host']);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const worst = (xs) => Math.max(...xs);

/** Pages answered ok per second in [fromMs, toMs) of the site's clock. */
const rate = (site, fromMs, toMs) =>
  site.log.filter((r) => r.answer === 'ok' && r.atMs >= fromMs && r.atMs < toMs).length /
  ((toMs - fromMs) / 1000);

/** One crawl; kind: '5xx', 'reset', 'flaky', 'hang' or 'none' (no outage, the reference). */
async function run(kind) {
  let first;
  let n = 0;
  const outageMs = kind === 'none' ? 0 : OUTAGE_MS;
  const window = () => (first === undefined ? undefined : [first + START_MS, first + START_MS + outageMs]);
  const site = await startFaultSite({
    pages: PAGES,
    latencyMs: 100,
    capacity: CAPACITY,
    fault: (r) => {
      first ??= r.atMs;
      const [from, to] = window();
      if (r.atMs < from || r.atMs >= to) return 'ok';
      if (kind === 'flaky') return ++n % 4 === 0 ? 'reset' : 'ok';
      if (kind === 'hang') return 'hang';
      return kind === 'reset' ? 'reset' : { status: 500 };
    },
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'crawld-outage-'));
  const config = validateConfig({
    dataDir,
    log: { level: 'error' },
    frontier: { kind: 'memory' },
    fetch: { allowAddresses: ['127.0.0.1'] },
    concurrency: { maxPerHost: MAX_PER_HOST },
    jobs: [{ id: 'outage', seeds: [`${site.origin}/`], robots: false }],
  });
  const t0 = site.now();
  const daemon = await createDaemon(config, { once: true });
  // The host's limit, sampled every 100 ms on the site's clock (for --trace).
  const limits = [];
  const host = new URL(site.origin).host;
  const sampler = setInterval(() => limits.push([site.now(), daemon.control.hostLimit(host)]), 100);
  await daemon.run();
  clearInterval(sampler);
  const total = (site.now() - t0) / 1000;
  await daemon.stop();
  await site.close();
  rmSync(dataDir, { recursive: true, force: true });
  const [from, to] = window();
  const after = site.log.find((r) => r.atMs >= to);
  const c = daemon.scheduler.counters;
  const pre = rate(site, from - 1500, from);
  const back = rate(site, to + 5000, to + 10_000);
  // The first 1 s window (in 100 ms steps) from the recovery at >= 0.9 x the pre-outage rate.
  let backAt = to;
  while (backAt < to + 30_000 && rate(site, backAt, backAt + 1000) < 0.9 * pre) backAt += 100;
  const trace = [];
  for (let t = from - 2000; t < to + 10_000; t += 1000) {
    const inSecond = limits.filter(([at]) => at >= t && at < t + 1000).map(([, l]) => l);
    trace.push(
      `${((t - from) / 1000).toFixed(0)}s ${rate(site, t, t + 1000).toFixed(0)}/s` +
        (inSecond.length ? ` lim ${Math.min(...inSecond)}-${Math.max(...inSecond)}` : ''),
    );
  }
  return {
    during: site.between(from, to),
    firstAfterS: after ? (after.atMs - to) / 1000 : Number.NaN,
    pre,
    back,
    ratio: back / pre,
    backS: (backAt - to) / 1000,
    endS: (site.log.at(-1).atMs - first) / 1000,
    totalS: total,
    ok: c.ok,
    dead: c.dead,
    trace,
  };
}

console.log(`outage bench: ${PAGES} pages, ~160 pages/s, outage ${OUTAGE_MS} ms from t=${START_MS} ms`);
const line = (r) =>
  `pre-outage ${r.pre.toFixed(0)} pages/s, 5-10 s after recovery ${r.back.toFixed(0)} pages/s ` +
  `(${r.ratio.toFixed(2)} x), a second at >= 0.9 x from ${r.backS.toFixed(1)} s, end ${r.endS.toFixed(1)} s after the first request, total ${r.totalS.toFixed(1)} s`;
// The same crawl without an outage: the ideal total is its time plus the outage's; its rates
// at the same moments show what the end of the crawl itself does to them.
const reference = [];
for (let i = 0; i < RUNS; i++) {
  const r = await run('none');
  reference.push(r.totalS);
  console.log(`  none  run ${i + 1}: ${line(r)}`);
}
const ideal = median(reference) + OUTAGE_MS / 1000;
console.log(
  `  no outage: median total ${median(reference).toFixed(1)} s; ideal with the outage ${ideal.toFixed(1)} s`,
);
for (const kind of KINDS) {
  const results = [];
  for (let i = 0; i < RUNS; i++) {
    const r = await run(kind);
    results.push(r);
    console.log(
      `  ${kind.padEnd(5)} run ${i + 1}: requests during outage ${String(r.during).padStart(4)}, ` +
        `first request ${r.firstAfterS.toFixed(2)} s after recovery, ${line(r)}, ` +
        `${r.ok} ok, ${r.dead} dead-lettered`,
    );
    if (TRACE) console.log(`    per second from the outage's start: ${r.trace.join(' | ')}`);
  }
  const col = (k) => results.map((r) => r[k]);
  const least = (xs) => Math.min(...xs);
  console.log(
    `  ${kind.padEnd(5)} median (worst): requests during outage ${median(col('during'))} (${worst(col('during'))})${kind === 'flaky' ? '' : ' [goal <= 50]'}, ` +
      `first request after recovery ${median(col('firstAfterS')).toFixed(2)} s (${worst(col('firstAfterS')).toFixed(2)}) [goal <= 3], ` +
      `5-10 s after recovery ${median(col('ratio')).toFixed(2)} x pre-outage (${least(col('ratio')).toFixed(2)}) [goal >= 0.9], ` +
      `a second at >= 0.9 x from ${median(col('backS')).toFixed(1)} s (${worst(col('backS')).toFixed(1)}) [goal <= 5], ` +
      `end ${median(col('endS')).toFixed(1)} s (${worst(col('endS')).toFixed(1)}), ` +
      `total ${median(col('totalS')).toFixed(1)} s (${worst(col('totalS')).toFixed(1)}) [goal <= 25; ` +
      `${(median(col('totalS')) / ideal).toFixed(2)} x ideal], ` +
      `dead-lettered ${worst(col('dead'))} [goal 0]`,
  );
}
