#!/usr/bin/env node
// Breadth benchmark: one crawl over many hosts against the same number of pages on one host,
// in one run.
//
//   node bench/breadth.mjs                          # 2000 hosts × 15 pages, 3 runs of each side
//   node bench/breadth.mjs --runs 1                 # one of each (as before commit c107dae)
//   node bench/breadth.mjs --hosts 200 --pages 10   # a quick check
//   node bench/breadth.mjs --cpu-prof-dir /tmp/p     # + breadth-AN.cpuprofile, single-AN.cpuprofile
//                                                   # (summarise: bench/cpuprofile-summary.mjs)
//   node bench/breadth.mjs --dist-b ../base/dist     # another build, alternating with this one
//                                                   # (A = --dist, B = --dist-b; B / A at the end)
//
// The site is one child process listening on --hosts ports of 127.0.0.1; each port is a host
// to crawld (URL.host includes the port). Site h serves /h/h/p/0 .. /h/h/p/(pages-1): page i
// links to pages 2i+1 and 2i+2 of its site and to /p/0 and /p/1 of two other sites (cross-host
// links: most of them are found again, so dedupe and the frontier see real breadth), and each
// host answers /robots.txt with 404. Seeds: every site's /p/0.
//
//   breadth  `crawld run --once`, politeness.minDelayMs --delay-ms (500) per host, SQLite
//            frontier, defaults otherwise
//   single   the same sites, pages, links and seeds, all served by one host (one port), with no
//            politeness delay (with 500 ms it would be one page per 500 ms: the comparison is of
//            the crawler's cost of breadth, not of the delay)
//
// --single-site tree: the single-host side used before commit e58ebbe instead, one binary tree of
// hosts × pages pages whose cross links all fold onto its own /p/0 and /p/1 (3 distinct links a
// page on average against breadth's 4.9; kept to compare with the figures of that time).
//
// Each crawl is a child process, timed spawn to exit; peak RSS from polling /proc/PID/status
// (VmHWM). The two sides alternate, --runs (3) times each; one side alone moved by 15–25 %
// between runs minutes apart on the shared 2-core machine, so the summary gives the ratio of
// the median pages/s (as bench/run.mjs does) and each run's own. Prints pages/s, peak RSS (the
// largest over the runs), memory per host (median of (breadth RSS − single RSS) / hosts) and
// breadth / single. Compare ratios from one invocation, not absolute figures.
// Needs a build first (npm run build).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    hosts: { type: 'string', default: '2000' },
    pages: { type: 'string', default: '15' },
    'delay-ms': { type: 'string', default: '500' },
    /** The single-host side: 'same' (the breadth site on one port) or 'tree' (before e58ebbe). */
    'single-site': { type: 'string', default: 'same' },
    /** Internal (--site): how many ports serve the sites (default: one per site). */
    ports: { type: 'string' },
    /** concurrency.global of both crawls (default: the config's default). */
    global: { type: 'string' },
    /** Internal (--site): which share of the ports this process serves, `i/n`. */
    slice: { type: 'string' },
    /** Internal: serve the site in this process. */
    site: { type: 'boolean', default: false },
    /** Runs of each side, interleaved (breadth, single, breadth, ...); the ratio is of medians. */
    runs: { type: 'string', default: '3' },
    /** Only the breadth crawl (no single-host comparison). */
    'breadth-only': { type: 'boolean', default: false },
    dist: { type: 'string', default: join(root, 'dist') },
    /** A second build (another worktree's dist) run beside --dist in the same sitting, alternating. */
    'dist-b': { type: 'string' },
    /** Write each crawl's V8 CPU profile (node --cpu-prof) into this directory, named by crawl. */
    'cpu-prof-dir': { type: 'string' },
  },
});
const HOSTS = Number(opt.hosts);
const PAGES = Number(opt.pages);
const DELAY = Number(opt['delay-ms']);
const RUNS = Number(opt.runs);
for (const [k, v] of [
  ['hosts', HOSTS],
  ['pages', PAGES],
  ['runs', RUNS],
]) {
  if (!Number.isSafeInteger(v) || v < 1) throw new Error(`--${k} needs a positive integer`);
}

if (!['same', 'tree'].includes(opt['single-site'])) throw new Error('--single-site needs same or tree');
if (opt.site) {
  const [slice, slices] = (opt.slice ?? '0/1').split('/').map(Number);
  await serveSite(HOSTS, PAGES, opt.ports !== undefined ? Number(opt.ports) : HOSTS, slice, slices);
} else await main();

/**
 * The site: `sites` sites of `pages` pages on `portCount` servers on free ports (site h on port
 * index h mod portCount). This process (slice `slice` of `slices`) listens on the port indices p
 * with p mod slices = slice, prints `PORTS [[p, port], ..]`, then reads every slice's ports as
 * `ALL [port of index 0, ..]` on stdin (links name other slices' ports) and prints `READY`.
 * More than one slice: one process's descriptors (ulimit -n) do not hold 20,000 listening ports
 * and their connections.
 */
async function serveSite(sites, pages, portCount, slice, slices) {
  let ports = [];
  const at = (h, i) => `http://127.0.0.1:${ports[h % ports.length]}/h/${h}/p/${i}`;
  const page = (h, i) => {
    const other = (k) => (h * 31 + i * 7 + k) % sites;
    const links = [];
    // A binary tree within the site (depth log2 pages: the single-host crawl is not a chain).
    for (const j of [2 * i + 1, 2 * i + 2]) if (j < pages) links.push(at(h, j));
    for (const k of [1, 2]) links.push(at(other(k), 0), at(other(k), 1));
    return (
      `<!doctype html><html><head><title>host ${h} page ${i}</title></head><body>` +
      `<h1 class="title">Host ${h}, page ${i}</h1><span class="price">${(h + i) % 100}.99</span>` +
      `<ul>${links.map((u) => `<li><a href="${u}">${u}</a></li>`).join('')}</ul></body></html>`
    );
  };
  const servers = [];
  const own = [];
  let connections = 0;
  let requests = 0;
  let minGapMs = Number.POSITIVE_INFINITY;
  const lastPageAt = new Map();
  for (let p = slice; p < portCount; p += slices) {
    const srv = createServer((req, res) => {
      requests++;
      const m = /^\/h\/(\d+)\/p\/(\d+)$/.exec(req.url ?? '');
      const h = m ? Number(m[1]) : -1;
      const i = m ? Number(m[2]) : -1;
      if (m) {
        // The politeness delay as the site sees it: the least gap between two pages of a port.
        const t = performance.now();
        const last = lastPageAt.get(p);
        if (last !== undefined) minGapMs = Math.min(minGapMs, t - last);
        lastPageAt.set(p, t);
      }
      if (h < 0 || h >= sites || h % portCount !== p || i < 0 || i >= pages) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      const body = page(h, i);
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
    // Past 5,000 hosts, Apache's 5 s (not 60): idle connections of finished hosts close, so
    // the crawler's and the site's descriptors stay under ulimit -n.
    srv.keepAliveTimeout = portCount > 5000 ? 5000 : 60_000;
    srv.on('connection', () => connections++);
    await new Promise((r) => srv.listen(0, '127.0.0.1', r));
    own.push([p, srv.address().port]);
    servers.push(srv);
  }
  process.stdout.write(`PORTS ${JSON.stringify(own)}\n`);
  let input = '';
  process.stdin.on('data', (b) => {
    input += b;
    const m = /ALL (\[.*\])\n/.exec(input);
    if (m && ports.length === 0) {
      ports = JSON.parse(m[1]);
      process.stdout.write('READY\n');
    }
  });
  process.on('SIGTERM', () => {
    for (const s of servers) s.closeAllConnections();
    const gap = Number.isFinite(minGapMs) ? minGapMs : null;
    process.stdout.write(`SERVED ${JSON.stringify({ connections, requests, minGapMs: gap })}\n`);
    process.exit(0);
  });
}

/** Starts the site (sites, pages, ports); resolves with its ports and seeds. */
async function startSite(hosts, pages, ports = hosts) {
  const slices = Math.ceil(ports / 6000);
  const children = Array.from({ length: slices }, (_, i) => startSlice(hosts, pages, ports, i, slices));
  const all = [];
  for (const c of children) for (const [p, port] of await c.ports) all[p] = port;
  for (const c of children) c.child.stdin.write(`ALL ${JSON.stringify(all)}\n`);
  await Promise.all(children.map((c) => c.ready));
  const seeds = Array.from({ length: hosts }, (_, h) => `http://127.0.0.1:${all[h % all.length]}/h/${h}/p/0`);
  /** Stops the site; resolves with the connections and requests it served. */
  const stop = async () => {
    const served = await Promise.all(children.map((c) => c.stop()));
    if (served.some((s) => s === undefined)) return undefined;
    return {
      connections: served.reduce((n, s) => n + s.connections, 0),
      requests: served.reduce((n, s) => n + s.requests, 0),
      minGapMs: Math.min(...served.map((s) => s.minGapMs ?? Number.POSITIVE_INFINITY)),
    };
  };
  return { ports: all, seeds, stop };
}

/** One site process: its ports, its readiness once told all ports, and a stop. */
function startSlice(hosts, pages, ports, slice, slices) {
  const child = spawn(
    process.execPath,
    [
      import.meta.filename,
      '--site',
      '--hosts',
      String(hosts),
      '--pages',
      String(pages),
      '--ports',
      String(ports),
      '--slice',
      `${slice}/${slices}`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  let out = '';
  let onPorts;
  let onReady;
  const fail = new Promise((_, rej) =>
    child.once('exit', (code) => rej(new Error(`site exited with ${code}`))),
  );
  fail.catch(() => {});
  const portsP = Promise.race([new Promise((r) => (onPorts = r)), fail]);
  const ready = Promise.race([new Promise((r) => (onReady = r)), fail]);
  child.stdout.on('data', (b) => {
    out += b;
    const m = /PORTS (\[.*\])\n/.exec(out);
    if (m && onPorts) {
      onPorts(JSON.parse(m[1]));
      onPorts = undefined;
    }
    if (/READY\n/.test(out) && onReady) {
      onReady();
      onReady = undefined;
    }
  });
  const stop = () =>
    new Promise((done) => {
      child.stdout.on('end', () => {
        const s = /SERVED (\{.*\})\n/.exec(out);
        done(s ? JSON.parse(s[1]) : undefined);
      });
      child.kill('SIGTERM');
    });
  return { child, ports: portsP, ready, stop };
}

/** One `crawld run --once`; resolves with pages, seconds and peak RSS (MiB). */
function crawl(name, seeds, minDelayMs, dist) {
  const dir = mkdtempSync(join(tmpdir(), `crawld-breadth-${name}-`));
  const config = {
    dataDir: dir,
    log: { level: 'error' },
    fetch: { allowPrivateNetworks: true },
    politeness: { minDelayMs },
    ...(opt.global ? { concurrency: { global: Number(opt.global) } } : {}),
    jobs: [
      {
        id: 'breadth',
        seeds,
        extract: {
          fields: {
            title: { selector: 'h1.title', required: true },
            price: { selector: 'span.price', type: 'number' },
          },
        },
      },
    ],
  };
  const file = join(dir, 'crawld.json');
  writeFileSync(file, JSON.stringify(config));
  return new Promise((res, rej) => {
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      [
        ...(opt['cpu-prof-dir']
          ? [
              '--cpu-prof',
              '--cpu-prof-dir',
              resolve(opt['cpu-prof-dir']),
              '--cpu-prof-name',
              `${name}.cpuprofile`,
            ]
          : []),
        join(dist, 'crawld.mjs'),
        'run',
        '--config',
        file,
        '--once',
        '--no-progress',
        // An HTTP server (ephemeral port) holds the event loop open: without it a build before
        // crawld exits 0 during the politeness gaps (its wake-up timer is unref'd).
        '--http-port',
        '0',
      ],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let err = '';
    child.stderr.on('data', (b) => {
      err = (err + b).slice(-4000);
    });
    let hwmKb = 0;
    let cpuTicks = 0;
    const poll = setInterval(() => {
      try {
        const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'));
        if (m) hwmKb = Math.max(hwmKb, Number(m[1]));
        // utime + stime (fields 14, 15), in clock ticks: CPU per page, which the load distorts less.
        const stat = readFileSync(`/proc/${child.pid}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        cpuTicks = Number(f[11]) + Number(f[12]);
      } catch {
        // exited between polls
      }
    }, 50);
    child.once('error', rej);
    child.once('close', (code) => {
      clearInterval(poll);
      const secs = (performance.now() - t0) / 1000;
      if (code !== 0) return rej(new Error(`${name}: crawld exited ${code}\n${err}`));
      const lines = readFileSync(join(dir, 'results.jsonl'), 'utf8').split('\n').filter(Boolean);
      rmSync(dir, { recursive: true, force: true });
      res({
        pages: lines.length,
        secs,
        rssMb: hwmKb / 1024,
        cpuSecs: cpuTicks / 100,
        timeline: timeline(lines),
      });
    });
  });
}

/**
 * Pages fetched in each second of the crawl, from the records' fetchedAt (first record = 0 s),
 * and when hosts got their first and last page (percentiles over hosts): a crawl whose hosts
 * start late, or are served unevenly, ends with a tail of few pages per second.
 */
function timeline(lines) {
  const recs = lines.map((l) => JSON.parse(l));
  const at = recs.map((r) => Date.parse(r.fetchedAt));
  const t0 = Math.min(...at);
  const perSec = [];
  const hosts = new Map();
  recs.forEach((r, i) => {
    const t = (at[i] - t0) / 1000;
    perSec[Math.floor(t)] = (perSec[Math.floor(t)] ?? 0) + 1;
    const host = new URL(r.url).host;
    const h = hosts.get(host) ?? { first: t, last: t };
    hosts.set(host, { first: Math.min(h.first, t), last: Math.max(h.last, t) });
  });
  const pct = (xs, ps) => {
    xs.sort((a, b) => a - b);
    return ps
      .map((p) => `p${p} ${xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))].toFixed(1)}`)
      .join(' ');
  };
  const h = [...hosts.values()];
  const first = pct(
    h.map((x) => x.first),
    [50, 90, 100],
  );
  const last = pct(
    h.map((x) => x.last),
    [10, 50, 90, 100],
  );
  return {
    perSec: Array.from(perSec, (n) => n ?? 0),
    hosts: `first page at ${first} s; last at ${last} s\n          ${tailHosts(h)}`,
  };
}

/**
 * Did the hosts that finished last start late, or run slowly? The last tenth of hosts to get
 * their last page against all hosts: mean first page, and mean span from first to last page.
 */
function tailHosts(h) {
  const mean = (xs, f) => (xs.reduce((s, x) => s + f(x), 0) / Math.max(1, xs.length)).toFixed(1);
  const tail = [...h].sort((a, b) => b.last - a.last).slice(0, Math.max(1, Math.ceil(h.length / 10)));
  const first = (x) => x.first;
  const span = (x) => x.last - x.first;
  return (
    `last tenth of hosts to finish: first page mean ${mean(tail, first)} s (all ${mean(h, first)}), ` +
    `first-to-last span mean ${mean(tail, span)} s (all ${mean(h, span)})`
  );
}

async function main() {
  const total = HOSTS * PAGES;
  const builds = [{ name: 'A', dist: opt.dist }];
  if (opt['dist-b']) builds.push({ name: 'B', dist: opt['dist-b'] });
  const label = (b) => (builds.length > 1 ? `${b.name} ` : '');
  console.log(
    `breadth: ${HOSTS} hosts × ${PAGES} pages = ${total} pages, minDelayMs ${DELAY} per host, ${RUNS} run(s) of each side, interleaved`,
  );
  if (builds.length > 1) for (const b of builds) console.log(`build ${b.name}: ${b.dist}`);
  const fmt = (r) =>
    `${r.pages} pages in ${r.secs.toFixed(1)} s = ${(r.pages / r.secs).toFixed(0)} pages/s, peak RSS ${r.rssMb.toFixed(0)} MiB, CPU ${cpuMs(r).toFixed(2)} ms/page (to its last 50 ms)` +
    (r.served
      ? `; the site served ${r.served.requests} requests on ${r.served.connections} connections, least gap between two pages of one port ${r.served.minGapMs.toFixed(1)} ms`
      : '');
  const tree = opt['single-site'] === 'tree';
  const runs = builds.map(() => []);
  for (let run = 1; run <= RUNS; run++) {
    console.log(`\n-- run ${run}`);
    for (const [bi, build] of builds.entries()) {
      const breadth = await crawlSite(
        await startSite(HOSTS, PAGES),
        `breadth-${build.name}${run}`,
        DELAY,
        build.dist,
      );
      console.log(`${label(build)}breadth:  ${fmt(breadth)}`);
      console.log(`          pages per second of the crawl: ${breadth.timeline.perSec.join(' ')}`);
      console.log(`          hosts' ${breadth.timeline.hosts}`);
      if (breadth.pages !== total)
        console.log(`          (expected ${total} pages: the crawl missed ${total - breadth.pages})`);
      if (opt['breadth-only']) {
        runs[bi].push({ breadth });
        continue;
      }
      const single = await crawlSite(
        tree ? await startSite(1, total) : await startSite(HOSTS, PAGES, 1),
        `single-${build.name}${run}`,
        0,
        build.dist,
      );
      const what = tree ? 'one host, one tree of pages (--single-site tree)' : 'the same sites on one host';
      console.log(`${label(build)}single:   ${fmt(single)} (${what}, no politeness delay)`);
      console.log(`          pages per second of the crawl: ${single.timeline.perSec.join(' ')}`);
      console.log(`ratio breadth / single (pages/s), this run: ${ratio(breadth, single).toFixed(2)}`);
      runs[bi].push({ breadth, single });
    }
  }
  const politeFloor = (PAGES - 1) * (DELAY / 1000);
  console.log(`\npoliteness floor: ${politeFloor.toFixed(1)} s (pages per host - 1) × minDelayMs`);
  for (const [bi, build] of builds.entries())
    summary(runs[bi], builds.length > 1 ? `build ${build.name}` : '');
  if (builds.length > 1) {
    const rate = (r) => r.pages / r.secs;
    const m = (i, side, f) => median(runs[i].map((r) => f(r[side])));
    console.log(
      `\nB / A: breadth pages/s ${(m(1, 'breadth', rate) / m(0, 'breadth', rate)).toFixed(2)}, breadth CPU per page ${(m(1, 'breadth', cpuMs) / m(0, 'breadth', cpuMs)).toFixed(2)}` +
        (opt['breadth-only']
          ? ''
          : `, single pages/s ${(m(1, 'single', rate) / m(0, 'single', rate)).toFixed(2)}, single CPU per page ${(m(1, 'single', cpuMs) / m(0, 'single', cpuMs)).toFixed(2)}`),
    );
  }
}

/** CPU ms per page of one crawl. */
function cpuMs(r) {
  return (r.cpuSecs / r.pages) * 1000;
}

/** The summary of one build's runs. */
function summary(runs, title) {
  const rate = (r) => r.pages / r.secs;
  const b = runs.map((r) => r.breadth);
  const peakRss = Math.max(...b.map((r) => r.rssMb));
  const n = runs.length;
  if (title) console.log(`\n== ${title}:`);
  if (opt['breadth-only']) {
    console.log(
      `pages/s median: breadth ${median(b.map(rate)).toFixed(0)}; CPU ${median(b.map(cpuMs)).toFixed(2)} ms/page (median)`,
    );
    console.log(`peak RSS breadth: ${peakRss.toFixed(0)} MiB (the largest of ${n})`);
    return;
  }
  const s = runs.map((r) => r.single);
  const perHostKb = median(runs.map((r) => ((r.breadth.rssMb - r.single.rssMb) * 1024) / HOSTS));
  console.log(`\n== ${n} run(s) (goals: ratio >= 0.8, peak RSS <= 400 MiB at 2000 hosts)`);
  console.log(
    `pages/s median: breadth ${median(b.map(rate)).toFixed(0)}, single ${median(s.map(rate)).toFixed(0)}`,
  );
  console.log(
    `ratio breadth / single (pages/s): ${(median(b.map(rate)) / median(s.map(rate))).toFixed(2)} (ratio of medians); per run ${runs.map((r) => ratio(r.breadth, r.single).toFixed(2)).join(', ')}`,
  );
  console.log(
    `CPU ms/page median: breadth ${median(b.map(cpuMs)).toFixed(2)}, single ${median(s.map(cpuMs)).toFixed(2)} (ratio ${(median(s.map(cpuMs)) / median(b.map(cpuMs))).toFixed(2)})`,
  );
  console.log(`peak RSS breadth: ${peakRss.toFixed(0)} MiB (the largest of ${n})`);
  console.log(`memory per host: ${perHostKb.toFixed(1)} KiB (median of (breadth - single peak RSS) / hosts)`);
}

/** One crawl of the site's seeds, then the site stopped; the result with what the site served. */
async function crawlSite(site, name, delayMs, dist) {
  let result;
  try {
    result = await crawl(name, site.seeds, delayMs, dist);
  } finally {
    const served = await site.stop();
    if (result) result.served = served;
  }
  return result;
}

/** Breadth pages/s over single pages/s. */
function ratio(breadth, single) {
  return breadth.pages / breadth.secs / (single.pages / single.secs);
}

function median(xs) {
  const v = [...xs].sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}
