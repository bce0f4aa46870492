// Scale check for the frontier adapters: 1,000,000 URLs enqueued in calls of 1000 (--batch),
// leased in batches of 100 and acked (together per batch, as a daemon's workers ack, or one by
// one with --serial-ack). Prints throughput, CPU and peak RSS.
//
// SQLite always; Redis too when a Redis is at hand: --redis-url URL (a server on 127.0.0.1,
// which this FLUSHES: give it a scratch one), else a throwaway redis-server started on a free
// 127.0.0.1 port when the binary is on PATH. --frontier sqlite|redis picks one.
// Each adapter runs in a child process of its own, so each peak RSS is its own. With both,
// the summary gives Redis / SQLite ratios from this one run, and Redis memory per queued URL
// (used_memory with every URL pending, minus before the run, over the URLs).
// Needs a build first (npm run build).
// Usage: node bench/frontier-scale.mjs [count] [--batch N] [--serial-ack] [--frontier sqlite|redis]
//        [--redis-url redis://127.0.0.1:PORT]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { haveRedisServer, startRedis } from './redis-server.mjs';

const { values: opt, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    batch: { type: 'string', default: '1000' },
    'serial-ack': { type: 'boolean', default: false },
    frontier: { type: 'string' },
    'redis-url': { type: 'string' },
    /** Internal: run one adapter in this process and print its figures. */
    child: { type: 'string' },
  },
});
const total = Number(positionals[0] ?? 1_000_000);
const ENQUEUE_BATCH = Number(opt.batch);
if (!Number.isSafeInteger(ENQUEUE_BATCH) || ENQUEUE_BATCH < 1)
  throw new Error('--batch needs a positive integer');
if (!Number.isSafeInteger(total) || total < 1) throw new Error('count must be a positive integer');
const LEASE_BATCH = 100;
const HOSTS = 1000;

const rate = (n, ms) => Math.round((n / ms) * 1000).toLocaleString('en-US');
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(0);
const cpu = (from) => {
  const u = process.cpuUsage(from);
  return `cpu ${((u.user + u.system) / 1e6).toFixed(1)} s`;
};

/**
 * Enqueues `total` URLs, then leases and acks them all; prints rates. `serverCpu` (Redis)
 * answers the server's CPU seconds and commands so far: each phase then also prints the
 * server's CPU and commands (those run by scripts included) per URL, which the load of a
 * shared machine distorts less than the rates (the commands not at all).
 */
async function exercise(frontier, afterEnqueue = async () => {}, serverCpu = undefined) {
  let s0 = await serverCpu?.();
  let breakdown = '';
  const server = async () => {
    if (!serverCpu) return '';
    const s1 = await serverCpu();
    const perUrl = ((s1.cpu - s0.cpu) / total) * 1e6;
    const commands = (s1.commands - s0.commands) / total;
    // Where the commands went (INFO commandstats), per URL: the profile to cut from.
    // ... and the time Redis spent in each (usec; a script's time includes its commands').
    const delta = (name) => ((s1.byCommand[name] ?? 0) - (s0.byCommand[name] ?? 0)) / total;
    const by = Object.keys(s1.byCommand)
      .filter((name) => !name.endsWith(' us') && (delta(name) >= 0.05 || delta(`${name} us`) >= 0.5))
      .sort((a, b) => delta(b) - delta(a))
      .map((name) => `${name} ${delta(name).toFixed(2)} (${delta(`${name} us`).toFixed(1)} us)`);
    s0 = s1;
    breakdown = `           commands per URL: ${by.join(', ')}`;
    return `, server cpu ${perUrl.toFixed(1)} us/URL, ${commands.toFixed(1)} commands/URL`;
  };
  let t0 = performance.now();
  let c0 = process.cpuUsage();
  for (let start = 0; start < total; start += ENQUEUE_BATCH) {
    const batch = [];
    for (let i = start; i < Math.min(start + ENQUEUE_BATCH, total); i++) {
      batch.push({
        url: `http://host${i % HOSTS}.example.com/section/${i % 97}/page-${i}.html`,
        jobId: 'bench-job',
        priority: i % 3,
        depth: 1,
      });
    }
    await frontier.enqueue(batch);
  }
  const enqueueMs = performance.now() - t0;
  const enqueueCpu = `${cpu(c0)}${await server()}`;
  const stats = await frontier.stats();
  console.log(
    `enqueue:   ${total.toLocaleString('en-US')} in ${(enqueueMs / 1000).toFixed(1)} s = ${rate(total, enqueueMs)}/s (${enqueueCpu})`,
  );
  if (breakdown) console.log(breakdown);
  console.log(`pending:   ${stats.pending.toLocaleString('en-US')}`);
  await afterEnqueue();

  t0 = performance.now();
  c0 = process.cpuUsage();
  let acked = 0;
  for (;;) {
    const tasks = await frontier.lease({ max: LEASE_BATCH, leaseMs: 60_000, owner: 'bench' });
    if (tasks.length === 0) break;
    // Acked together, as a daemon's concurrent workers ack: the SQLite frontier commits the acks
    // of one event-loop turn in one transaction. (--serial-ack acks one by one, a commit each.)
    if (opt['serial-ack']) {
      for (const task of tasks) if (await frontier.ack(task)) acked++;
    } else {
      for (const ok of await Promise.all(tasks.map((t) => frontier.ack(t)))) if (ok) acked++;
    }
  }
  const leaseMs = performance.now() - t0;
  const leaseCpu = `${cpu(c0)}${await server()}`;
  console.log(
    `lease+ack: ${acked.toLocaleString('en-US')} in ${(leaseMs / 1000).toFixed(1)} s = ${rate(acked, leaseMs)}/s (${leaseCpu})`,
  );
  if (breakdown) console.log(breakdown);
  console.log(`done:      ${(await frontier.stats()).done.toLocaleString('en-US')}`);
  return { enqueuePerSec: (total / enqueueMs) * 1000, leaseAckPerSec: (acked / leaseMs) * 1000 };
}

/** The child's figures for the parent's summary, on a line of their own. */
function report(figures) {
  console.log(`RESULT ${JSON.stringify(figures)}`);
}

async function runSqlite() {
  const { SqliteFrontier } = await import('../dist/src/adapters/frontier/sqlite/sqlite-frontier.js');
  const { systemClock } = await import('../dist/src/core/clock.js');
  const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-'));
  const path = join(dir, 'frontier.db');
  const frontier = new SqliteFrontier({ path, clock: systemClock });
  await frontier.open();
  try {
    report(await exercise(frontier));
    console.log(`db file:   ${mib(statSync(path).size)} MiB`);
    console.log(`peak RSS:  ${mib(process.resourceUsage().maxRSS * 1024)} MiB`);
  } finally {
    await frontier.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runRedis(url) {
  const { RedisFrontier } = await import('../dist/src/adapters/frontier/redis/redis-frontier.js');
  const { systemClock } = await import('../dist/src/core/clock.js');
  const { Redis } = await import('ioredis');
  const admin = new Redis(url, { lazyConnect: true });
  await admin.connect();
  await admin.flushall();
  const usedMemory = async () => Number(/used_memory:(\d+)/.exec(await admin.info('memory'))?.[1]);
  const before = await usedMemory();
  let bytesPerUrl = Number.NaN;
  const frontier = new RedisFrontier({ url, clock: systemClock, keyPrefix: 'bench' });
  await frontier.open();
  try {
    const serverCpu = async () => {
      const info = await admin.info('all');
      const field = (name) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1]);
      const byCommand = {};
      for (const m of info.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) {
        byCommand[m[1]] = Number(m[2]);
        byCommand[`${m[1]} us`] = Number(m[3]);
      }
      // Commands run inside scripts count too: a measure of the work the load cannot distort.
      return {
        cpu: field('used_cpu_user') + field('used_cpu_sys'),
        commands: field('total_commands_processed'),
        byCommand,
      };
    };
    const figures = await exercise(
      frontier,
      async () => {
        bytesPerUrl = ((await usedMemory()) - before) / total;
        console.log(`memory:    ${bytesPerUrl.toFixed(0)} bytes per queued URL (used_memory, all pending)`);
        // One host's share, by key (MEMORY USAGE, every element sampled): the task hash holds the
        // records (and the dedupe), the ready zset the queue order.
        const perHost = total / HOSTS;
        const usage = async (suffix) =>
          Number(await admin.call('MEMORY', 'USAGE', `bench:{host0.example.com}:${suffix}`, 'SAMPLES', '0'));
        // The task hash is split in buckets :t, :t1, ... (count: tb in the meta hash).
        const buckets = Number((await admin.hget('bench:{host0.example.com}:m', 'tb')) ?? 1);
        let tasks = 0;
        for (let b = 0; b < buckets; b++) tasks += await usage(b === 0 ? 't' : `t${b}`);
        const ready = await usage('r');
        console.log(
          `           host0: task hash ${(tasks / perHost).toFixed(0)}, ready zset ${(ready / perHost).toFixed(0)} bytes per URL (MEMORY USAGE, ${perHost} URLs)`,
        );
      },
      serverCpu,
    );
    report({ ...figures, bytesPerUrl });
    const info = await admin.info('memory');
    const peak = /used_memory_peak:(\d+)/.exec(info)?.[1];
    console.log(`peak RSS:  ${mib(process.resourceUsage().maxRSS * 1024)} MiB (crawld process)`);
    if (peak) console.log(`redis:     used_memory_peak ${mib(Number(peak))} MiB`);
  } finally {
    await frontier.close();
    await admin.flushall();
    admin.disconnect();
  }
}

if (opt.child === 'sqlite') {
  await runSqlite();
} else if (opt.child === 'redis') {
  await runRedis(opt['redis-url']);
} else {
  await main();
}

async function main() {
  const want = opt.frontier ? [opt.frontier] : ['sqlite', 'redis'];
  for (const f of want)
    if (f !== 'sqlite' && f !== 'redis') throw new Error(`--frontier sqlite|redis, got ${f}`);
  const forward = [
    String(total),
    '--batch',
    String(ENQUEUE_BATCH),
    ...(opt['serial-ack'] ? ['--serial-ack'] : []),
  ];
  console.log(
    `frontier scale: ${total.toLocaleString('en-US')} URLs on ${HOSTS} hosts, enqueue calls of ${ENQUEUE_BATCH}, lease batches of ${LEASE_BATCH}`,
  );
  const results = {};
  if (want.includes('sqlite')) {
    console.log('\n== SQLite (data dir on the local disk, WAL)');
    results.sqlite = await child(['--child', 'sqlite', ...forward]);
  }
  if (!want.includes('redis')) return;
  let url = opt['redis-url'];
  let server;
  if (url === undefined) {
    if (!haveRedisServer()) {
      const msg = 'redis-server not on PATH and no --redis-url: Redis skipped';
      if (opt.frontier === 'redis') throw new Error(msg);
      console.log(`\n${msg}`);
      return;
    }
    server = await startRedis();
    url = server.url;
  }
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost')
    throw new Error(`--redis-url must be on 127.0.0.1, got ${host}`);
  try {
    console.log(
      `\n== Redis (${server ? `redis-server ${server.version}, started for this run, no persistence` : url})`,
    );
    results.redis = await child(['--child', 'redis', '--redis-url', url, ...forward]);
    if (server) console.log(`redis:     peak RSS ${mib(server.peakRssBytes())} MiB (redis-server process)`);
  } finally {
    await server?.stop();
  }
  const { sqlite, redis } = results;
  if (sqlite && redis) {
    console.log('\n== Redis / SQLite, this run (goals: lease+ack >= 0.3, enqueue >= 0.5, <= 200 bytes/URL)');
    console.log(`lease+ack: ${(redis.leaseAckPerSec / sqlite.leaseAckPerSec).toFixed(3)}`);
    console.log(`enqueue:   ${(redis.enqueuePerSec / sqlite.enqueuePerSec).toFixed(3)}`);
    console.log(`memory:    ${redis.bytesPerUrl.toFixed(0)} bytes per queued URL`);
  }
}

/** Runs one adapter in a child process, echoing its output; resolves with its RESULT figures. */
function child(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [import.meta.filename, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let figures;
    let buffered = '';
    p.stdout.on('data', (chunk) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop();
      for (const line of lines) {
        if (line.startsWith('RESULT ')) figures = JSON.parse(line.slice(7));
        else console.log(line);
      }
    });
    p.once('error', reject);
    p.once('exit', (code) =>
      code === 0 ? resolve(figures) : reject(new Error(`${args[1]} run exited with ${code}`)),
    );
  });
}
