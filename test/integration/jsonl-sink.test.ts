import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JsonlSink, resultsPath } from '../../src/adapters/sink/jsonl-sink.js';
import { type ResultRecord, recordKey } from '../../src/ports/sink.js';

function rec(i: number, generation = 0, extra: Partial<ResultRecord> = {}): ResultRecord {
  return {
    // Deliberately not url-first, to check the sink reorders.
    taskId: `t${i}`,
    url: `http://site.test/p/${i}`,
    finalUrl: `http://site.test/p/${i}`,
    jobId: 'job',
    generation,
    status: 200,
    fetchedAt: '2024-01-01T00:00:00.000Z',
    depth: 1,
    contentType: 'text/html',
    contentHash: 'ab'.repeat(32),
    bytes: 100,
    durationMs: 3,
    fields: { title: `Product ${i}\nline "two"`, price: i * 1.5 },
    ...extra,
  } as ResultRecord;
}

async function lines(path: string): Promise<string[]> {
  const text = await readFile(path, 'utf8');
  expect(text.endsWith('\n') || text === '').toBe(true);
  return text.split('\n').filter((l) => l !== '');
}

describe('JsonlSink', () => {
  let dir: string;
  let path: string;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'crawld-jsonl-'));
    path = resultsPath(join(dir, 'nested', 'data'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes one JSON object per line with url first, and appends after reopen', async () => {
    const sink = new JsonlSink({ path });
    await sink.open();
    await sink.write(rec(1));
    await sink.write(rec(2));
    await sink.flush();
    await sink.close();
    await sink.close();

    const reopened = new JsonlSink({ path });
    await reopened.open();
    await reopened.write(rec(3));
    await reopened.close();

    const got = await lines(path);
    expect(got).toHaveLength(3);
    expect(got.map((l) => (JSON.parse(l) as ResultRecord).taskId)).toEqual(['t1', 't2', 't3']);
    expect(Object.keys(JSON.parse(got[0] ?? '{}') as object)[0]).toBe('url');
    expect(JSON.parse(got[0] ?? '{}')).toEqual(rec(1));
  });

  it('write() resolves only once the line is in the file', async () => {
    const sink = new JsonlSink({ path });
    await sink.open();
    await sink.write(rec(7));
    expect(await lines(path)).toHaveLength(1);
    await sink.close();
  });

  it('rejects writes before open and after close', async () => {
    const sink = new JsonlSink({ path });
    await expect(sink.write(rec(1))).rejects.toThrow(/not open/);
    await sink.open();
    await sink.close();
    await expect(sink.write(rec(1))).rejects.toThrow(/not open/);
  });

  it('repairs a torn last line on open', async () => {
    const sink = new JsonlSink({ path });
    await sink.open();
    await sink.write(rec(1));
    await sink.write(rec(2));
    await sink.close();
    await appendFile(path, '{"url":"http://site.test/p/3","taskId":"t3","gen');

    await sink.open();
    await sink.write(rec(4));
    await sink.close();
    const got = await lines(path);
    expect(got.map((l) => (JSON.parse(l) as ResultRecord).taskId)).toEqual(['t1', 't2', 't4']);
  });

  it('truncates a file that holds only a torn line, including one longer than the scan chunk', async () => {
    const sink = new JsonlSink({ path });
    await sink.open();
    await sink.close();
    await writeFile(path, `{"url":"${'x'.repeat(200_000)}`);
    await sink.open();
    await sink.write(rec(1));
    await sink.close();
    expect(await lines(path)).toHaveLength(1);

    await appendFile(path, `{"url":"${'y'.repeat(150_000)}`);
    await sink.open();
    await sink.close();
    expect(await lines(path)).toHaveLength(1);
  });

  it('recover() returns the given keys present in the file', async () => {
    const sink = new JsonlSink({ path });
    await sink.open();
    expect(await sink.recover(new Set(['t1#0']))).toEqual(new Set());
    for (let i = 0; i < 50; i++) await sink.write(rec(i, i % 3));
    await sink.write(rec(99, 0, { taskId: 'we"ird\\id' }));
    await sink.close();
    await appendFile(path, 'not json at all\n{"url":"x","taskId":"t5","generation":');

    const again = new JsonlSink({ path });
    const keys = new Set([
      recordKey({ taskId: 't1', generation: 1 }),
      recordKey({ taskId: 't1', generation: 2 }),
      recordKey({ taskId: 't5', generation: 2 }),
      recordKey({ taskId: 't49', generation: 1 }),
      recordKey({ taskId: 'missing', generation: 0 }),
      recordKey({ taskId: 'we"ird\\id', generation: 0 }),
    ]);
    expect(await again.recover(keys)).toEqual(new Set(['t1#1', 't5#2', 't49#1', 'we"ird\\id#0']));
    await again.open();
    expect(await again.recover(new Set(['t2#2']))).toEqual(new Set(['t2#2']));
    await again.close();
  });

  it('recover() on a missing file finds nothing', async () => {
    const sink = new JsonlSink({ path: join(dir, 'none.jsonl') });
    expect(await sink.recover(new Set(['a#0']))).toEqual(new Set());
  });

  it('keeps lines intact under 1000 concurrent writes', async () => {
    const sink = new JsonlSink({ path });
    await sink.open();
    const big = 'z'.repeat(5000);
    await Promise.all(
      Array.from({ length: 1000 }, (_, i) =>
        sink.write(rec(i, 0, { fields: { body: i % 10 === 0 ? big : i } })),
      ),
    );
    await sink.close();
    const got = await lines(path);
    expect(got).toHaveLength(1000);
    const ids = new Set(got.map((l) => (JSON.parse(l) as ResultRecord).taskId));
    expect(ids.size).toBe(1000);
  });
});
