#!/usr/bin/env node
// The SQLite frontier's lease with exclusions, as a breadth crawl's scheduler calls it: 2,000
// hosts × 5 tasks, 1,500 hosts excluded (waiting out their delay), 20 tasks a lease, each acked,
// the leased hosts joining the excluded set and as many of the oldest leaving it.
//
//   node bench/lease-exclusions.mjs                                   # this build
//   node bench/lease-exclusions.mjs --dist-b ../wt-base/dist --runs 5 # two builds, alternating
//
// Prints ms a lease (the lease call alone, wall) and CPU ms a lease (lease and acks) per run,
// and the medians. Needs a build first (npm run build).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const root = resolve(import.meta.dirname, '..');
const { values: opt } = parseArgs({
  options: {
    dist: { type: 'string', default: join(root, 'dist') },
    'dist-b': { type: 'string' },
    runs: { type: 'string', default: '3' },
    hosts: { type: 'string', default: '2000' },
    excluded: { type: 'string', default: '1500' },
    child: { type: 'boolean', default: false },
  },
});

if (opt.child) {
  const { SqliteFrontier } = await import(join(opt.dist, 'src/adapters/frontier/sqlite/sqlite-frontier.js'));
  const { systemClock } = await import(join(opt.dist, 'src/core/clock.js'));
  const dir = mkdtempSync(join(tmpdir(), 'crawld-lease-'));
  const f = new SqliteFrontier({ path: join(dir, 'f.db'), clock: systemClock });
  await f.open();
  const hosts = Number(opt.hosts);
  const host = (h) => `127.0.0.1:${10_000 + h}`;
  const reqs = [];
  for (let p = 0; p < 5; p++)
    for (let h = 0; h < hosts; h++) reqs.push({ url: `http://${host(h)}/p/${p}`, jobId: 'j' });
  await f.enqueue(reqs);
  const excluded = new Set(Array.from({ length: Number(opt.excluded) }, (_, h) => host(h)));
  let leases = 0;
  let leaseMs = 0;
  const cpu0 = process.cpuUsage();
  for (;;) {
    const t0 = performance.now();
    const tasks = await f.lease({ max: 20, leaseMs: 60_000, owner: 'o', excludeHosts: excluded });
    leaseMs += performance.now() - t0;
    leases++;
    if (tasks.length === 0) {
      if (excluded.size === 0) break;
      excluded.clear();
      continue;
    }
    for (const t of tasks) await f.ack(t);
    let drop = tasks.length;
    for (const h of excluded) if (drop-- > 0) excluded.delete(h);
    for (const t of tasks) excluded.add(t.host);
  }
  const cpu = process.cpuUsage(cpu0);
  await f.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(
    `RESULT ${JSON.stringify({ leases, ms: leaseMs / leases, cpuMs: (cpu.user + cpu.system) / 1000 / leases })}`,
  );
  process.exit(0);
}

const builds = [{ name: 'A', dist: resolve(opt.dist) }];
if (opt['dist-b']) builds.push({ name: 'B', dist: resolve(opt['dist-b']) });
const results = new Map(builds.map((b) => [b.name, []]));
for (let run = 1; run <= Number(opt.runs); run++) {
  for (const b of builds) {
    const args = [
      import.meta.filename,
      '--child',
      '--dist',
      b.dist,
      '--hosts',
      opt.hosts,
      '--excluded',
      opt.excluded,
    ];
    const out = spawnSync(process.execPath, args, { encoding: 'utf8' });
    const line = out.stdout.split('\n').find((l) => l.startsWith('RESULT '));
    if (!line) throw new Error(`${b.name} run ${run} failed: ${out.stderr}`);
    const r = JSON.parse(line.slice(7));
    results.get(b.name).push(r);
    console.log(
      `${b.name} run ${run}: ${r.leases} leases, ${r.ms.toFixed(3)} ms a lease, ${r.cpuMs.toFixed(3)} CPU ms a lease with its acks`,
    );
  }
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
for (const b of builds) {
  const rs = results.get(b.name);
  console.log(
    `${b.name} (${b.dist}): median ${median(rs.map((r) => r.ms)).toFixed(3)} ms a lease, ${median(rs.map((r) => r.cpuMs)).toFixed(3)} CPU ms`,
  );
}
