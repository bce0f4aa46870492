import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PostgresSink, type PostgresSinkOptions } from '../../src/adapters/sink/postgres-sink.js';
import { SinkError } from '../../src/core/errors.js';
import { type ResultRecord, recordKey, type SinkObserver } from '../../src/ports/sink.js';
import { type PostgresServer, startPostgres } from '../helpers/postgres-server.js';
import { pause, waitFor } from '../helpers/wait.js';

let server: PostgresServer;
let admin: pg.Client;
let tableNo = 0;

async function connectAdmin(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: server.url });
  // The server is stopped on purpose in one test: the dropped connection is expected.
  c.on('error', () => {});
  await c.connect();
  return c;
}

beforeAll(async () => {
  server = await startPostgres();
  admin = await connectAdmin();
}, 60_000);

afterAll(async () => {
  await admin?.end();
  await server?.stop();
});

function record(i: number, extra: Partial<ResultRecord> = {}): ResultRecord {
  return {
    url: `http://site.test/p/${i}`,
    finalUrl: `http://site.test/p/${i}`,
    jobId: 'job',
    taskId: `t${i}`,
    generation: 0,
    status: 200,
    fetchedAt: new Date(1_700_000_000_000 + i).toISOString(),
    depth: 1,
    contentType: 'text/html',
    contentHash: 'ab'.repeat(32),
    bytes: 100 + i,
    durationMs: 5,
    fields: { title: `page ${i}`, price: i },
    ...extra,
  };
}

interface Recorded {
  batches: number[];
  errors: string[];
  depths: number[];
}

function recorder(): Recorded & { observer: SinkObserver } {
  const r: Recorded = { batches: [], errors: [], depths: [] };
  return {
    ...r,
    observer: {
      batch: (e) => r.batches.push(e.records),
      error: (e) => r.errors.push(e.reason),
      bufferDepth: (e) => r.depths.push(e.depth),
    },
  };
}

const sinks: PostgresSink[] = [];
function newSink(table: string, o: Partial<PostgresSinkOptions> = {}): PostgresSink {
  const s = new PostgresSink({ url: server.url, table, retryBaseMs: 50, retryMaxMs: 200, ...o });
  sinks.push(s);
  return s;
}

afterEach(async () => {
  for (const s of sinks.splice(0)) await s.close();
});

async function count(table: string): Promise<number> {
  const r = await admin.query(`SELECT count(*)::int AS n FROM ${table}`);
  return r.rows[0].n;
}

function freshTable(): string {
  return `results_${process.pid}_${++tableNo}`;
}

const settled = <T>(p: Promise<T>) => {
  const state = { done: false };
  p.then(
    () => {
      state.done = true;
    },
    () => {
      state.done = true;
    },
  );
  return state;
};

describe('PostgresSink', () => {
  it('creates its table and writes concurrent records in multi-row batches of at most batchSize', async () => {
    const table = freshTable();
    const rec = recorder();
    const sink = newSink(table, { batchSize: 10, flushIntervalMs: 50, observer: rec.observer });
    await sink.open();
    await Promise.all(Array.from({ length: 25 }, (_, i) => sink.write(record(i))));
    // write() resolved means committed: another connection sees every row now.
    expect(await count(table)).toBe(25);
    expect(rec.batches.reduce((a, b) => a + b, 0)).toBe(25);
    expect(rec.batches.length).toBeLessThan(25);
    expect(Math.max(...rec.batches)).toBeLessThanOrEqual(10);
    const row = (await admin.query(`SELECT * FROM ${table} WHERE url = $1`, ['http://site.test/p/3']))
      .rows[0];
    expect(row).toMatchObject({ record_key: 't3#0', item: 0, job_id: 'job', status: 200, depth: 1 });
    expect(row.fields).toEqual({ title: 'page 3', price: 3 });
    expect(rec.depths.at(-1)).toBe(0);
  });

  it('never writes a record twice: recover() after a restart, and rewriting is a no-op', async () => {
    const table = freshTable();
    const first = newSink(table);
    await first.open();
    await Promise.all([0, 1, 2].map((i) => first.write(record(i))));
    await first.close();

    const second = newSink(table);
    await second.open();
    const keys = new Set([0, 1, 2, 3].map((i) => recordKey(record(i))));
    expect(await second.recover(keys)).toEqual(new Set(['t0#0', 't1#0', 't2#0']));
    // The crash came between write and ack: the same records are written again.
    await Promise.all([0, 1, 2, 3].map((i) => second.write(record(i, { fields: { title: 'again' } }))));
    expect(await count(table)).toBe(4);
    const kept = await admin.query(`SELECT fields FROM ${table} WHERE record_key = 't0#0'`);
    expect(kept.rows[0].fields.title).toBe('page 0');
    // A recrawl (next generation) is a new row.
    await second.write(record(0, { generation: 1 }));
    expect(await count(table)).toBe(5);
  });

  it('stores noindex, canonicalUrl, key and trap in their columns, also in a table an older crawld made', async () => {
    const table = freshTable();
    // The table as it was before these columns existed.
    await admin.query(`CREATE TABLE ${table} (
      url text NOT NULL, record_key text NOT NULL, item integer NOT NULL, job_id text NOT NULL,
      task_id text NOT NULL, generation integer NOT NULL, final_url text NOT NULL, status integer NOT NULL,
      fetched_at timestamptz NOT NULL, depth integer NOT NULL, content_type text NOT NULL,
      content_hash text NOT NULL, bytes bigint NOT NULL, duration_ms integer NOT NULL, fields jsonb NOT NULL,
      written_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (url, record_key, item))`);
    const sink = newSink(table);
    await sink.open();
    await sink.write(
      record(0, {
        url: 'http://site.test/p/0?b=1&a=2',
        key: 'http://site.test/p/0?a=2&b=1',
        noindex: true,
        canonicalUrl: 'http://site.test/canon',
        trap: 'soft_404',
      }),
    );
    await sink.write(record(1));
    await sink.close();
    const r = await admin.query(
      `SELECT url, key, record_key, noindex, canonical_url, trap FROM ${table} ORDER BY record_key`,
    );
    expect(r.rows).toEqual([
      {
        url: 'http://site.test/p/0?b=1&a=2',
        key: 'http://site.test/p/0?a=2&b=1',
        record_key: 't0#0',
        noindex: true,
        canonical_url: 'http://site.test/canon',
        trap: 'soft_404',
      },
      {
        url: 'http://site.test/p/1',
        key: null,
        record_key: 't1#0',
        noindex: false,
        canonical_url: null,
        trap: null,
      },
    ]);
  });

  it("onConflict 'update' overwrites the stored row instead", async () => {
    const table = freshTable();
    const sink = newSink(table, { onConflict: 'update' });
    await sink.open();
    await sink.write(record(0));
    await Promise.all([sink.write(record(0, { fields: { title: 'new' } })), sink.write(record(1))]);
    expect(await count(table)).toBe(2);
    const r = await admin.query(`SELECT fields FROM ${table} WHERE record_key = 't0#0'`);
    expect(r.rows[0].fields).toEqual({ title: 'new' });
  });

  it('writes one row per item, all or none, and recovers the page by its key', async () => {
    const table = freshTable();
    const sink = newSink(table);
    await sink.open();
    const items = [{ id: 1 }, { id: 2, note: 'nul\u0000byte' }, { id: 3 }];
    await sink.write(record(7, { items, fields: {} }));
    await sink.write(record(8, { items: [], fields: {} }));
    const rows = await admin.query(`SELECT item, fields FROM ${table} ORDER BY item`);
    expect(rows.rows).toEqual([
      { item: 0, fields: { id: 1 } },
      { item: 1, fields: { id: 2, note: 'nulbyte' } },
      { item: 2, fields: { id: 3 } },
    ]);
    expect(await sink.recover(new Set(['t7#0']))).toEqual(new Set(['t7#0']));
  });

  it('applies backpressure: with the table locked, at most maxBuffer rows wait and write() blocks', async () => {
    const table = freshTable();
    const rec = recorder();
    const sink = newSink(table, { batchSize: 2, flushIntervalMs: 10, maxBuffer: 5, observer: rec.observer });
    await sink.open();
    const locker = new pg.Client({ connectionString: server.url });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query(`LOCK TABLE ${table} IN ACCESS EXCLUSIVE MODE`);
    const writes = Array.from({ length: 20 }, (_, i) => sink.write(record(i)));
    const states = writes.map(settled);
    // Wait until the buffer is full (the first batch is stuck on the lock).
    await waitFor(() => sink.depth >= 5, 'the buffer full');
    await pause(300, 'nothing may happen: no more rows buffered, no write returns while the table is locked');
    expect(sink.depth).toBe(5);
    expect(states.filter((s) => s.done)).toHaveLength(0);
    expect(Math.max(...rec.depths)).toBeLessThanOrEqual(5);
    await locker.query('COMMIT');
    await locker.end();
    await Promise.all(writes);
    expect(await count(table)).toBe(20);
    expect(Math.max(...rec.depths)).toBeLessThanOrEqual(5);
    expect(sink.depth).toBe(0);
  });

  it('waits out a database that is down and loses nothing', async () => {
    const table = freshTable();
    const rec = recorder();
    const sink = newSink(table, { batchSize: 5, flushIntervalMs: 20, observer: rec.observer });
    await sink.open();
    await sink.write(record(100));
    await server.pause();
    try {
      const writes = Array.from({ length: 12 }, (_, i) => sink.write(record(i)));
      const states = writes.map(settled);
      // Failed twice on the stopped database: it retries, and no write has returned.
      await waitFor(() => rec.errors.filter((e) => e === 'transient').length >= 2, 'two transient errors');
      expect(states.filter((s) => s.done)).toHaveLength(0);
      await server.resume();
      await Promise.all(writes);
    } finally {
      await server.resume().catch(() => {});
    }
    await admin.end().catch(() => {});
    admin = await connectAdmin();
    expect(await count(table)).toBe(13);
  }, 30_000);

  it('flushes a partial batch on close without waiting for the interval', async () => {
    const table = freshTable();
    const sink = newSink(table, { batchSize: 1000, flushIntervalMs: 600_000 });
    await sink.open();
    const writes = [1, 2, 3].map((i) => sink.write(record(i)));
    const states = writes.map(settled);
    await pause(100, 'nothing may happen: a partial batch waits for the interval (600 s) or close()');
    expect(states.some((s) => s.done)).toBe(false);
    await sink.close();
    await Promise.all(writes);
    expect(await count(table)).toBe(3);
    await expect(sink.write(record(4))).rejects.toThrow(SinkError);
  });

  it('a record the database refuses fails alone; the rest of its batch is stored', async () => {
    const table = freshTable();
    const rec = recorder();
    const sink = newSink(table, { batchSize: 10, flushIntervalMs: 50, observer: rec.observer });
    await sink.open();
    const bad = sink.write(record(2, { status: 2 ** 40 }));
    const good = [1, 3].map((i) => sink.write(record(i)));
    await expect(bad).rejects.toThrow(SinkError);
    await Promise.all(good);
    expect(await count(table)).toBe(2);
    expect(rec.errors).toContain('permanent');
  });
});
