#!/usr/bin/env node
// Memory over a crawl: is crawld's RSS flat once the frontier holds every URL of the site?
//
//   npm run build && node bench/memory.mjs [--pages 20000] [--sample-ms 250]
//
// Starts the demo site (--pages pages, no latency) and `crawld run --once` on it with the
// bench extraction, then samples the daemon's RSS (/proc/PID/status) and, from its /metrics,
// pages fetched, URLs known to the frontier (pending + leased + done) and the V8 heap. The
// demo site links each page to 8 random pages, so the frontier knows almost every URL well
// before the crawl ends; from then on nothing should grow with pages fetched.
// Verdict: once the frontier is 95% full, the live heap (what a full GC leaves, sampled each
// second by bench/live-heap-sampler.mjs preloaded into crawld) grows by at most 10%.
// Linux only (/proc).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { demoJobYaml } from './demo-site.mjs';

const { values: opt } = parseArgs({
  options: {
    pages: { type: 'string', default: '20000' },
    'sample-ms': { type: 'string', default: '250' },
  },
});
const PAGES = Number(opt.pages);
const cli = resolve(import.meta.dirname, '../dist/crawld.mjs');

/** Live heap samples from bench/live-heap-sampler.mjs, preloaded into crawld. */
const live = [];
const startedAt = performance.now();
const sampler = resolve(import.meta.dirname, 'live-heap-sampler.mjs');

function spawnLogged(args, nodeFlags = []) {
  const child = spawn(process.execPath, [...nodeFlags, cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let partial = '';
  const keep = (d) => {
    out = (out + d).slice(-200_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', (d) => {
    keep(d);
    const lines = (partial + d).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      if (line.startsWith('LIVEHEAP '))
        live.push({ at: performance.now() - startedAt, ...JSON.parse(line.slice(9)) });
    }
  });
  return { child, out: () => out };
}

async function waitFor(fn, what) {
  for (let i = 0; i < 200; i++) {
    const v = fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const metric = (text, name) => {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+]+)$`, 'm').exec(text);
  return m ? Number(m[1]) : 0;
};
const rssMb = (pid) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

const site = spawnLogged(['site', '--port', '0', '--pages', String(PAGES)]);
const dir = mkdtempSync(join(tmpdir(), 'crawld-memory-'));
let crawld;
try {
  const origin = await waitFor(() => /(http:\/\/127\.0\.0\.1:\d+)/.exec(site.out())?.[1], 'the demo site');
  const config = join(dir, 'crawld.yaml');
  writeFileSync(
    config,
    'log: { level: info }\n' +
      'http: { port: 0 }\n' +
      "fetch: { allowAddresses: ['127.0.0.1'] }\n" +
      demoJobYaml(origin),
  );
  crawld = spawnLogged(
    ['run', '--config', config, '--data-dir', join(dir, 'data'), '--once', '--no-progress'],
    ['--expose-gc', '--import', sampler],
  );
  const exited = new Promise((r) => crawld.child.once('exit', r));
  let done = false;
  exited.then(() => {
    done = true;
  });
  // The admin API's address is in the log line "http server listening".
  const api = await waitFor(
    () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(crawld.out())?.[1],
    'the admin API',
  );

  const samples = [];
  while (!done) {
    try {
      const text = await (await fetch(`${api}/metrics`)).text();
      const known =
        metric(text, 'crawld_frontier_pending') +
        metric(text, 'crawld_frontier_leased') +
        metric(text, 'crawld_frontier_done');
      samples.push({
        at: performance.now() - startedAt,
        pages: metric(text, 'crawld_pages_total'),
        known,
        rss: rssMb(crawld.child.pid),
        heap: metric(text, 'nodejs_heap_size_used_bytes') / 1024 / 1024,
      });
    } catch {
      // The daemon is shutting down.
    }
    await new Promise((r) => setTimeout(r, Number(opt['sample-ms'])));
  }
  await exited;

  console.log(`crawld memory over a ${PAGES}-page crawl (${samples.length} samples)`);
  console.log('  pages fetched   URLs known   RSS MB   V8 heap used MB');
  const step = Math.max(1, Math.floor(samples.length / 12));
  for (let i = 0; i < samples.length; i += step) {
    const s = samples[i];
    console.log(
      `  ${String(s.pages).padStart(13)}   ${String(s.known).padStart(10)}   ${s.rss.toFixed(0).padStart(6)}   ${s.heap.toFixed(0).padStart(15)}`,
    );
  }
  const fullAt = samples.findIndex((s) => s.known >= 0.95 * PAGES);
  if (fullAt < 0) {
    console.log('verdict: the frontier never reached 95% of the site; crawl more pages');
    process.exitCode = 1;
  } else {
    // RSS and heap-used saw with garbage collection: V8 lets the old generation fill with
    // garbage before a full collection (measured: 97 MB of heap before one that left 26 MB).
    // The live heap is what a full collection leaves, sampled each second by the preloaded
    // sampler, so that is the figure that must not grow with the pages fetched.
    const after = samples.slice(fullAt);
    const atFull = after[0];
    const peak = Math.max(...after.map((x) => x.rss));
    console.log(
      `frontier 95% full at ${atFull.pages} pages fetched (RSS ${atFull.rss.toFixed(0)} MB); ` +
        `RSS peak after that ${peak.toFixed(0)} MB, at the end ${after.at(-1).rss.toFixed(0)} MB`,
    );
    const pagesAt = (t) => samples.findLast((x) => x.at <= t)?.pages ?? 0;
    const mb = (b) => (b / 1024 / 1024).toFixed(1);
    const since = live.filter((m) => m.at >= atFull.at);
    const pick = since.filter((_, i) => i % Math.max(1, Math.floor(since.length / 8)) === 0);
    console.log(
      `live heap after a full GC (MB at pages fetched): ${pick.map((m) => `${mb(m.heapUsed)} at ${pagesAt(m.at)}`).join(', ')}`,
    );
    if (since.length < 3) {
      console.log('verdict: fewer than 3 live-heap samples after the frontier filled: crawl more pages');
      process.exitCode = 1;
    } else {
      const first = since[0].heapUsed;
      const max = Math.max(...since.map((m) => m.heapUsed));
      const growth = max / first - 1;
      const flat = growth <= 0.1;
      console.log(
        `verdict: ${flat ? 'flat' : 'GROWS'}: live heap at most ${(growth * 100).toFixed(0)}% over its value when the frontier filled (goal <= 10%)`,
      );
      if (!flat) process.exitCode = 1;
    }
  }
} finally {
  crawld?.child.kill('SIGTERM');
  site.child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
