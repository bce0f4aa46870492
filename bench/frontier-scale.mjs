// Scale check for the SQLite frontier: 1,000,000 URLs enqueued in batches of 1000 (--batch),
// leased in batches of 100 and acked (together per batch, or one by one with --serial-ack).
// Prints throughput and peak RSS.
// Needs a build first (npm run build).
// Usage: node bench/frontier-scale.mjs [count] [--serial-ack] [--batch N (URLs per enqueue call, default 1000)]
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteFrontier } from '../dist/src/adapters/frontier/sqlite.js';
import { systemClock } from '../dist/src/core/clock.js';

const args = process.argv.slice(2);
const serialAck = args.includes('--serial-ack');
const batchAt = args.indexOf('--batch');
const ENQUEUE_BATCH = batchAt >= 0 ? Number(args[batchAt + 1]) : 1000;
// The count is the first argument that is neither a flag nor the value of --batch.
const total = Number(
  args.find((a, i) => !a.startsWith('--') && (batchAt < 0 || i !== batchAt + 1)) ?? 1_000_000,
);
if (!Number.isSafeInteger(ENQUEUE_BATCH) || ENQUEUE_BATCH < 1)
  throw new Error('--batch needs a positive integer');
const LEASE_BATCH = 100;
const HOSTS = 1000;

const dir = mkdtempSync(join(tmpdir(), 'crawld-bench-'));
const path = join(dir, 'frontier.db');
const frontier = new SqliteFrontier({ path, clock: systemClock });
await frontier.open();

const rate = (n, ms) => Math.round((n / ms) * 1000).toLocaleString('en-US');
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(0);
// CPU seconds of this process (all threads) since `from`: less sensitive than wall time to
// other processes on the core, and wall - cpu is roughly the time spent waiting on I/O.
const cpu = (from) => {
  const u = process.cpuUsage(from);
  return `cpu ${((u.user + u.system) / 1e6).toFixed(1)} s`;
};

try {
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
  const stats = await frontier.stats();
  console.log(
    `enqueue:   ${total.toLocaleString('en-US')} in ${(enqueueMs / 1000).toFixed(1)} s = ${rate(total, enqueueMs)}/s (${cpu(c0)})`,
  );
  console.log(`pending:   ${stats.pending.toLocaleString('en-US')}`);

  t0 = performance.now();
  c0 = process.cpuUsage();
  let acked = 0;
  for (;;) {
    const tasks = await frontier.lease({ max: LEASE_BATCH, leaseMs: 60_000, owner: 'bench' });
    if (tasks.length === 0) break;
    // Acked together, as a daemon's concurrent workers ack: the frontier commits the acks of
    // one event-loop turn in one transaction. (--serial-ack acks one by one, a commit each.)
    if (serialAck) {
      for (const task of tasks) if (await frontier.ack(task)) acked++;
    } else {
      for (const ok of await Promise.all(tasks.map((t) => frontier.ack(t)))) if (ok) acked++;
    }
  }
  const leaseMs = performance.now() - t0;
  console.log(
    `lease+ack: ${acked.toLocaleString('en-US')} in ${(leaseMs / 1000).toFixed(1)} s = ${rate(acked, leaseMs)}/s (${cpu(c0)})`,
  );
  console.log(`done:      ${(await frontier.stats()).done.toLocaleString('en-US')}`);
  console.log(`db file:   ${mib(statSync(path).size)} MiB`);
  console.log(`peak RSS:  ${mib(process.resourceUsage().maxRSS * 1024)} MiB`);
} finally {
  await frontier.close();
  rmSync(dir, { recursive: true, force: true });
}
