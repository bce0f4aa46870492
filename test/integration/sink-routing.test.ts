import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/adapters/frontier/memory/memory-frontier.js';
import { JsonlSink } from '../../src/adapters/sink/jsonl-sink.js';
import { validateConfig } from '../../src/config/config.js';
import { FakeClock } from '../../src/core/clock.js';
import { ConfigError } from '../../src/core/errors.js';
import { createDaemon } from '../../src/daemon/daemon.js';
import { startDemoSite } from '../../src/demo/site.js';
import { recoverLeases } from '../../src/engine/recovery/lease-recovery.js';
import { PartialRecords } from '../../src/engine/recovery/partial-records.js';
import { createLogger } from '../../src/observe/logger.js';
import type { Task } from '../../src/ports/frontier.js';
import type { ResultRecord } from '../../src/ports/sink.js';
import { readJsonl, tempDir } from '../helpers/cli.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.js';

/** Sinks with a `jobs` filter: each job's records go to its own sinks, recovery asks only them. */

/** The record of a 200 for `t`, as a sink holds it after a crawl wrote it. */
const okRecord = (t: Task): ResultRecord => ({
  url: t.url,
  finalUrl: t.url,
  jobId: t.jobId,
  taskId: t.id,
  generation: t.generation,
  status: 200,
  fetchedAt: new Date(0).toISOString(),
  depth: 0,
  contentType: 'text/html',
  contentHash: '',
  bytes: 0,
  durationMs: 0,
  fields: {},
});

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

describe('sinks per job', () => {
  it("routes each job's records to the sinks that name it (and to unfiltered ones)", async () => {
    const site = await startDemoSite({ pages: 5 });
    const dir = tempDir();
    try {
      const extract = { fields: { title: { selector: 'h1.title' } } };
      const config = validateConfig({
        dataDir: dir,
        frontier: { kind: 'memory' },
        fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
        sinks: [
          { kind: 'jsonl', path: join(dir, 'a.jsonl'), jobs: ['a'] },
          { kind: 'postgres', url: server.url, table: 'routed', jobs: ['b'] },
          { kind: 'jsonl', path: join(dir, 'all.jsonl') },
        ],
        jobs: [
          { id: 'a', seeds: [`${site.url}/`], extract },
          { id: 'b', seeds: [`${site.url}/`], extract },
        ],
      });
      const logger = createLogger({ level: 'error', instanceId: 't', silent: true });
      const daemon = await createDaemon(config, { once: true, logger });
      await daemon.run();
      await daemon.stop();
      const a = readJsonl(join(dir, 'a.jsonl'));
      const all = readJsonl(join(dir, 'all.jsonl'));
      expect(a.length).toBe(5);
      expect(new Set(a.map((r) => r.jobId))).toEqual(new Set(['a']));
      expect(all.length).toBe(10);
      const db = new pg.Client({ connectionString: server.url });
      await db.connect();
      try {
        const rows = await db.query('SELECT job_id, count(*)::int AS n FROM routed GROUP BY job_id');
        expect(rows.rows).toEqual([{ job_id: 'b', n: 5 }]);
      } finally {
        await db.end();
      }
    } finally {
      await site.close();
    }
  }, 30_000);

  it('refuses a sink naming a job that does not exist', () => {
    expect(() =>
      validateConfig({
        sinks: [{ kind: 'jsonl', jobs: ['nope'] }],
        jobs: [{ id: 'a', seeds: ['https://a.example/'] }],
      }),
    ).toThrow(ConfigError);
  });

  it('recovery asks each sink only about its jobs: records held by their own sinks are acked', async () => {
    const clock = new FakeClock(1_000);
    const frontier = new MemoryFrontier({ clock });
    await frontier.open();
    await frontier.enqueue([
      { url: 'https://a.example/1', jobId: 'a' },
      { url: 'https://b.example/1', jobId: 'b' },
      { url: 'https://b.example/2', jobId: 'b' },
    ]);
    const leased = await frontier.lease({ max: 10, leaseMs: 60_000, owner: 'dead' });
    expect(leased).toHaveLength(3);
    const dir = tempDir();
    const sinkA = new JsonlSink({ path: join(dir, 'a.jsonl') });
    const sinkB = new JsonlSink({ path: join(dir, 'b.jsonl') });
    await sinkA.open();
    await sinkB.open();
    // The dead process wrote a's record and b/1's, not b/2's.
    const byUrl = new Map(leased.map((t) => [t.url, t]));
    await sinkA.write(okRecord(byUrl.get('https://a.example/1')!));
    await sinkB.write(okRecord(byUrl.get('https://b.example/1')!));
    const sinksFor = (jobId: string) => (jobId === 'a' ? [sinkA] : [sinkB]);
    const result = await recoverLeases(frontier, [sinkA, sinkB], clock.now(), () => undefined, sinksFor);
    expect(result).toEqual({ acked: 2, returned: 1 });
    const again = await frontier.lease({ max: 10, leaseMs: 60_000, owner: 'new' });
    expect(again.map((t) => t.url)).toEqual(['https://b.example/2']);
    await sinkA.close();
    await sinkB.close();
    await frontier.close();
  });

  it('a record only some sinks hold is fetched again and noted, so it is written only to the others', async () => {
    const clock = new FakeClock(1_000);
    const frontier = new MemoryFrontier({ clock });
    await frontier.open();
    await frontier.enqueue([{ url: 'https://a.example/1', jobId: 'a' }]);
    const [task] = await frontier.lease({ max: 1, leaseMs: 60_000, owner: 'dead' });
    const dir = tempDir();
    const first = new JsonlSink({ path: join(dir, '1.jsonl') });
    const second = new JsonlSink({ path: join(dir, '2.jsonl') });
    await first.open();
    await second.open();
    // The crash came between the two sinks' writes.
    await first.write(okRecord(task!));
    const partial = new PartialRecords();
    const result = await recoverLeases(
      frontier,
      [first, second],
      clock.now(),
      () => undefined,
      undefined,
      partial,
    );
    expect(result).toEqual({ acked: 0, returned: 1 });
    const key = `${task!.id}#${task!.generation}`;
    expect(partial.holds(key, first)).toBe(true);
    expect(partial.holds(key, second)).toBe(false);
    await first.close();
    await second.close();
    await frontier.close();
  });

  it('a sink that fails after another stored the record: the retry writes only the missing one', async () => {
    const site = await startDemoSite({ pages: 3 });
    const dir = tempDir();
    const db = new pg.Client({ connectionString: server.url });
    await db.connect();
    try {
      // The table exists already and refuses every row until the constraint is dropped.
      await db.query(`CREATE TABLE refusing (url text NOT NULL, record_key text NOT NULL, item integer NOT NULL,
        job_id text NOT NULL, task_id text NOT NULL, generation integer NOT NULL, final_url text NOT NULL,
        status integer NOT NULL CONSTRAINT no_rows CHECK (status < 0), fetched_at timestamptz NOT NULL,
        depth integer NOT NULL, content_type text NOT NULL, content_hash text NOT NULL, bytes bigint NOT NULL,
        duration_ms integer NOT NULL, fields jsonb NOT NULL, written_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (url, record_key, item))`);
      const config = validateConfig({
        dataDir: dir,
        frontier: { kind: 'memory', leaseMs: 1000 },
        fetch: { allowAddresses: [`127.0.0.1:${site.port}`] },
        sinks: [
          { kind: 'jsonl' },
          { kind: 'postgres', url: server.url, table: 'refusing', flushIntervalMs: 10 },
        ],
        jobs: [{ id: 'a', seeds: [`${site.url}/`], scope: { maxDepth: 0 } }],
      });
      const logger = createLogger({ level: 'error', instanceId: 't', silent: true });
      const daemon = await createDaemon(config, { once: false, logger });
      const failed = daemon.events.once('internalError');
      const done = daemon.events.once('pageDone');
      void daemon.run();
      await failed;
      expect(readJsonl(join(dir, 'results.jsonl'))).toHaveLength(1);
      await db.query('ALTER TABLE refusing DROP CONSTRAINT no_rows');
      // The lease expires and the task runs again: the row is written, the line is not.
      await done;
      await daemon.stop();
      expect(readJsonl(join(dir, 'results.jsonl'))).toHaveLength(1);
      const rows = await db.query('SELECT count(*)::int AS n FROM refusing');
      expect(rows.rows[0].n).toBe(1);
    } finally {
      await db.end();
      await site.close();
    }
  }, 30_000);
});
