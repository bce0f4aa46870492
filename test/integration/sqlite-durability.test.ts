/**
 * The SQLite frontier keeps its promise across close/reopen and across kill -9: a child
 * process enqueues and leases through the built adapter (dist/, from `npm run build`,
 * which `npm test` runs first), is SIGKILLed with no chance to close or checkpoint, and
 * the test then finds every committed task in the WAL.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/adapters/frontier/sqlite/sqlite-frontier.js';
import { FakeClock } from '../../src/core/clock.js';
import { expectBookkeeping } from '../helpers/sqlite-dedupe.js';

const builtAdapter = fileURLToPath(
  new URL('../../dist/src/adapters/frontier/sqlite/sqlite-frontier.js', import.meta.url),
);
const T0 = 1_700_000_000_000;

const CHILD = `
import { SqliteFrontier } from ${JSON.stringify(builtAdapter)};
const clock = { now: () => ${T0}, monotonic: () => 0, setTimer: () => ({ cancel() {} }) };
const frontier = new SqliteFrontier({ path: process.argv[2], clock, dedupeMergeRows: Number(process.argv[3]) });
await frontier.open();
for (let batch = 0; batch < 5; batch++) {
  const requests = [];
  for (let i = 0; i < 100; i++) requests.push({ url: 'http://example.com/' + (batch * 100 + i), jobId: 'job1' });
  await frontier.enqueue(requests);
}
const leased = await frontier.lease({ max: 10, leaseMs: 60000, owner: 'child' });
console.log(JSON.stringify({ enqueued: 500, leased: leased.map((t) => t.id) }));
setInterval(() => {}, 1000); // stay alive until killed
`;

/** Runs the child until it reports, then SIGKILLs it. */
async function runAndKill(
  script: string,
  dbPath: string,
  mergeRows: number,
): Promise<{ enqueued: number; leased: string[] }> {
  const child = spawn(process.execPath, [script, dbPath, String(mergeRows)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.on('exit', (_code, signal) => resolve(signal)),
  );
  const lines = createInterface({ input: child.stdout });
  for await (const line of lines) {
    expect(existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size).toBeGreaterThan(0);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    return JSON.parse(line);
  }
  throw new Error(`child exited without reporting (signal ${await exited}): ${stderr}`);
}

describe('sqlite frontier durability', () => {
  let dir: string;
  let dbPath: string;
  const frontiers: SqliteFrontier[] = [];
  const reopen = async (clock: FakeClock) => {
    const f = new SqliteFrontier({ path: dbPath, clock });
    frontiers.push(f);
    await f.open();
    return f;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crawld-durability-'));
    dbPath = join(dir, 'frontier.db');
  });
  afterEach(async () => {
    for (const f of frontiers.splice(0)) await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps tasks, leases and dead letters across close and reopen', async () => {
    const clock = new FakeClock(T0);
    const first = await reopen(clock);
    await first.enqueue([1, 2, 3].map((i) => ({ url: `http://example.com/${i}`, jobId: 'job1' })));
    const [a, b] = await first.lease({ max: 2, leaseMs: 60_000, owner: 'w' });
    await first.deadLetter(a!, 'http_404');
    await first.close();

    const second = await reopen(clock);
    expect(await second.stats()).toMatchObject({ pending: 1, leased: 1, dead: 1, done: 0 });
    expect(await second.listDead()).toMatchObject([{ id: a!.id, reason: 'http_404', attempts: 1 }]);
    expect(await second.ack(b!)).toBe(true);
    expect(await second.enqueue([{ url: 'http://example.com/1', jobId: 'job1' }])).toMatchObject({
      duplicates: 1,
    });
  });

  // 20,000: no dedupe row moves (the default); 30: every enqueue of 100 URLs moves 100.
  it.each([20_000, 30])(
    'keeps every committed task when the process is killed with SIGKILL (dedupeMergeRows %i)',
    async (mergeRows) => {
      if (!existsSync(builtAdapter))
        throw new Error(`${builtAdapter} is missing: run \`npm run build\` first`);
      const script = join(dir, 'child.mjs');
      writeFileSync(script, CHILD);
      const report = await runAndKill(script, dbPath, mergeRows);

      const clock = new FakeClock(T0);
      const f = await reopen(clock);
      expect(await f.stats()).toMatchObject({ pending: 490, leased: 10, done: 0, dead: 0 });
      const leased = await f.listLeased();
      expect(leased.map((t) => t.id)).toEqual(report.leased);
      expect(leased.every((t) => t.leaseExpiresAt === T0 + 60_000)).toBe(true);

      // The killed worker's leases expire and their tasks come back first (they were first in line).
      clock.advance(60_000);
      const again = await f.lease({ max: 10, leaseMs: 60_000, owner: 'test' });
      expect(again.map((t) => t.id)).toEqual(report.leased);
      expect(again.every((t) => t.attempts === 0)).toBe(true);

      // Every URL is still known, wherever its dedupe row was when the process died.
      expect(expectBookkeeping(dbPath)).toBe(Math.min(mergeRows, 500));
      const urls = Array.from({ length: 500 }, (_, i) => ({ url: `http://example.com/${i}`, jobId: 'job1' }));
      expect(await f.enqueue(urls)).toEqual({ added: 0, duplicates: 500, dropped: 0 });
    },
  );
});
