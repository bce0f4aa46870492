// Soak: the daemon recrawls the demo site (with injected 500s) for a long time while RSS and
// open file descriptors are sampled from /proc. Not part of `npm test`: run `npm run build`
// first, then `node bench/soak.mjs [--minutes 20]`. Linux only (/proc).
//
// Verdict: after the warm-up, RSS grows by less than 10% (mean of the last quarter of the
// samples against the mean of the first quarter), descriptors other than sockets do not grow
// (max of the last quarter <= max of the first), and sockets stay within the connection pool
// (keep-alive sockets come and go with the adaptive concurrency limit, so their count moves
// both ways; a leak would break through the pool's bound).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '20' },
    'warmup-minutes': { type: 'string' },
    'sample-seconds': { type: 'string', default: '10' },
    pages: { type: 'string', default: '2000' },
    'latency-ms': { type: 'string', default: '20' },
    'error-rate': { type: 'string', default: '0.05' },
    'recrawl-seconds': { type: 'string', default: '30' },
    keep: { type: 'boolean', default: false },
  },
});
const minutes = Number(values.minutes);
const warmupMinutes = Number(values['warmup-minutes'] ?? Math.min(5, minutes / 4));
const sampleMs = Number(values['sample-seconds']) * 1000;
const CLI = resolve(import.meta.dirname, '../dist/crawld.mjs');
const CONNECTIONS_PER_HOST = 64;

function start(args) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const onData = (d) => {
    out += d.toString();
    if (out.length > 1_000_000) out = out.slice(-100_000);
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const waitFor = (re, ms = 30_000) =>
    new Promise((res, rej) => {
      const t = setInterval(() => {
        const m = out.match(re);
        if (m) {
          clearInterval(t);
          clearTimeout(to);
          res(m);
        }
      }, 50);
      const to = setTimeout(() => {
        clearInterval(t);
        rej(new Error(`timed out waiting for ${re}:\n${out.slice(-2000)}`));
      }, ms);
    });
  return { child, waitFor, output: () => out };
}

function procSample(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
  let fds = 0;
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds++;
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // Closed between readdir and readlink.
    }
  }
  return { rssMiB: rssKb / 1024, fds, sockets, other: fds - sockets };
}

function metric(text, name, labels = {}) {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) {
      sum += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return sum;
}

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;

const dir = mkdtempSync(join(tmpdir(), 'crawld-soak-'));
const site = start([
  'site',
  '--port',
  '0',
  '--pages',
  values.pages,
  '--latency-ms',
  values['latency-ms'],
  '--error-rate',
  values['error-rate'],
]);
const origin = (await site.waitFor(/(http:\/\/127\.0\.0\.1:\d+)/))[1];
const config = {
  dataDir: join(dir, 'data'),
  log: { level: 'info' },
  fetch: { allowAddresses: [`127.0.0.1:${new URL(origin).port}`], connectionsPerHost: CONNECTIONS_PER_HOST },
  retry: { maxAttempts: 3, baseDelayMs: 200, maxDelayMs: 2000 },
  jobs: [
    {
      id: 'soak',
      seeds: [`${origin}/`],
      recrawlIntervalMs: Number(values['recrawl-seconds']) * 1000,
      extract: {
        fields: { title: { selector: 'h1.title' }, price: { selector: 'span.price', type: 'number' } },
      },
    },
  ],
};
writeFileSync(join(dir, 'soak.json'), JSON.stringify(config));
const daemon = start(['run', '--config', join(dir, 'soak.json'), '--http-port', '0', '--no-progress']);
const api = (await daemon.waitFor(/http server listening[^\n]*?"url":"(http:\/\/127\.0\.0\.1:\d+)"/))[1];
const pid = daemon.child.pid;

console.log(
  `soak: ${minutes} min (warm-up ${warmupMinutes} min), sample every ${sampleMs / 1000} s; ` +
    `${values.pages} pages, ${values['latency-ms']} ms latency, error rate ${values['error-rate']}, ` +
    `recrawl every ${values['recrawl-seconds']} s; daemon pid ${pid}, data ${dir}`,
);
console.log('  t(s)  RSS(MiB)  heap(MiB)  fds  sockets  other   ok pages   failed  retries  pages/s  warm');
const samples = [];
const t0 = Date.now();
let lastOk = 0;
let lastT = t0;
let died = false;
daemon.child.on('exit', () => {
  died = true;
});
while (Date.now() - t0 < minutes * 60_000 && !died) {
  await new Promise((r) => setTimeout(r, sampleMs));
  if (died) break;
  const now = Date.now();
  const { rssMiB, fds, sockets, other } = procSample(pid);
  const m = await (await fetch(`${api}/metrics`)).text();
  const ok = metric(m, 'crawld_pages_total', { result: 'ok' });
  const failed = metric(m, 'crawld_pages_total', { result: 'failed' });
  const retries = metric(m, 'crawld_retries_total');
  // V8 heap in use (prom-client default metric): a leak of JS objects shows here before RSS.
  const heapMiB = metric(m, 'nodejs_heap_size_used_bytes') / 1024 / 1024;
  const rate = (ok - lastOk) / ((now - lastT) / 1000);
  [lastOk, lastT] = [ok, now];
  const t = (now - t0) / 1000;
  const warm = t >= warmupMinutes * 60;
  samples.push({ t, rssMiB, heapMiB, fds, sockets, other, ok, warm });
  console.log(
    `${t.toFixed(0).padStart(6)}  ${rssMiB.toFixed(1).padStart(8)}  ${heapMiB.toFixed(1).padStart(9)}  ${String(fds).padStart(3)}  ${String(sockets).padStart(7)}  ${String(other).padStart(5)}  ` +
      `${String(ok).padStart(9)}  ${String(failed).padStart(7)}  ${String(retries).padStart(7)}  ` +
      `${rate.toFixed(1).padStart(7)}  ${warm ? 'yes' : 'no'}`,
  );
}

// Only an exit before this point is a failure of the soak.
const diedEarly = died;
const code = diedEarly
  ? daemon.child.exitCode
  : await new Promise((r) => {
      daemon.child.once('exit', (c) => r(c));
      daemon.child.kill('SIGTERM');
    });
site.child.kill('SIGTERM');

const after = samples.filter((s) => s.warm);
let pass = !diedEarly && code === 0;
if (diedEarly)
  console.log(`verdict: FAIL: the daemon exited during the soak\n${daemon.output().slice(-2000)}`);
if (after.length < 4) {
  console.log(`verdict: INCONCLUSIVE: only ${after.length} samples after warm-up (need 4)`);
  pass = false;
} else {
  const q = Math.max(1, Math.floor(after.length / 4));
  const first = after.slice(0, q);
  const last = after.slice(-q);
  const rssGrowth = mean(last.map((s) => s.rssMiB)) / mean(first.map((s) => s.rssMiB)) - 1;
  const maxOf = (xs, k) => Math.max(...xs.map((s) => s[k]));
  const fdGrowth = maxOf(last, 'other') - maxOf(first, 'other');
  const socketMax = maxOf(after, 'sockets');
  const rssOk = rssGrowth < 0.1;
  const fdOk = fdGrowth <= 0;
  // The pool's keep-alive sockets, the HTTP listener, our scrape connection and a few closing
  // sockets whose descriptors are not released yet: nothing more.
  const socketOk = socketMax <= CONNECTIONS_PER_HOST + 8;
  const worked = after.at(-1).ok > after[0].ok;
  pass = pass && rssOk && fdOk && socketOk && worked;
  console.log(
    `RSS after warm-up: ${mean(first.map((s) => s.rssMiB)).toFixed(1)} -> ${mean(last.map((s) => s.rssMiB)).toFixed(1)} MiB ` +
      `(${(rssGrowth * 100).toFixed(1)}%, goal < 10%): ${rssOk ? 'ok' : 'FAIL'}`,
  );
  // The GC sawtooth makes single samples noisy; the floor (min) is where a leak shows first.
  const floor = (xs) => Math.min(...xs.map((s) => s.rssMiB));
  console.log(
    `RSS floor after warm-up: ${floor(first).toFixed(1)} -> ${floor(last).toFixed(1)} MiB ` +
      `(${((floor(last) / floor(first) - 1) * 100).toFixed(1)}%, for information)`,
  );
  console.log(
    `V8 heap used after warm-up: ${mean(first.map((s) => s.heapMiB)).toFixed(1)} -> ` +
      `${mean(last.map((s) => s.heapMiB)).toFixed(1)} MiB (for information: JS objects, without allocator slack)`,
  );
  console.log(
    `non-socket fds after warm-up: max ${maxOf(first, 'other')} -> ${maxOf(last, 'other')} ` +
      `(growth ${fdGrowth}, goal <= 0): ${fdOk ? 'ok' : 'FAIL'}`,
  );
  console.log(
    `sockets after warm-up: ${Math.min(...after.map((s) => s.sockets))}..${socketMax}, mean ` +
      `${mean(first.map((s) => s.sockets)).toFixed(1)} -> ${mean(last.map((s) => s.sockets)).toFixed(1)} ` +
      `(goal: max <= connectionsPerHost ${CONNECTIONS_PER_HOST} + 8): ${socketOk ? 'ok' : 'FAIL'}`,
  );
  console.log(
    `pages crawled after warm-up: ${after.at(-1).ok - after[0].ok}: ${worked ? 'ok' : 'FAIL (idle)'}`,
  );
  console.log(`daemon exit code on SIGTERM: ${code}`);
  console.log(`verdict: ${pass ? 'PASS' : 'FAIL'}`);
}
if (!values.keep) rmSync(dir, { recursive: true, force: true });
process.exit(pass ? 0 : 1);
