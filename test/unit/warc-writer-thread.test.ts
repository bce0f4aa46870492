/**
 * The WARC writer thread: close drains what was tapped before it, and a thread that dies
 * mid-crawl fails the sink (its pages come back) without a hang; the next start closes the
 * file it left open, whole up to its last record.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { ClosedFile } from '../../src/adapters/sink/warc/files.js';
import type { WarcSink } from '../../src/adapters/sink/warc/warc-sink.js';
import { SinkError } from '../../src/core/errors.js';
import type { HttpExchange } from '../../src/ports/fetcher.js';
import type { ResultRecord } from '../../src/ports/sink.js';
import { tempDir } from '../helpers/cli.js';
import { parseRecords, sha1Of, type TestRecord } from '../helpers/warc.js';
import { testWarcSink } from '../helpers/warc-sink.js';

interface Heard {
  errors: string[];
  closed: ClosedFile[];
}

function sink(dir: string, heard: Heard): WarcSink {
  return testWarcSink(dir, true, {
    fileClosed: (f) => heard.closed.push(f),
    error: (reason) => heard.errors.push(reason),
  });
}

function exchange(i: number): HttpExchange {
  return {
    url: `http://a.example/p/${i}`,
    method: 'GET',
    requestHead: Buffer.from(`GET /p/${i} HTTP/1.1\r\nhost: a.example\r\n\r\n`, 'latin1'),
    date: new Date(Date.UTC(2026, 11, 7, 12, 0, i % 60)),
    status: 200,
    statusText: 'OK',
    responseHeaders: [['content-type', 'text/html']],
    body: Buffer.from(`<p>page ${i}</p>`.repeat(1 + (i % 7) * 300)),
  };
}

const page = { url: 'http://a.example/p/0' } as ResultRecord;

function fileRecords(dir: string, suffix: string): TestRecord[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(suffix))
    .sort()
    .flatMap((n) => parseRecords(gunzipSync(readFileSync(join(dir, n)))));
}

const responses = (records: readonly TestRecord[]) =>
  records.filter((r) => r.fields['warc-type'] === 'response');

describe('WarcSink writer thread', () => {
  it('close drains: every exchange tapped before it is in the closed file, in order', async () => {
    const dir = tempDir();
    const heard: Heard = { errors: [], closed: [] };
    const s = sink(dir, heard);
    await s.open();
    const n = 60;
    for (let i = 0; i < n; i++) expect(s.tap(exchange(i))).toBeInstanceOf(Promise);
    await s.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.open'))).toEqual([]);
    expect(heard.closed).toHaveLength(1);
    expect(heard.closed[0]!.records).toBe(1 + 2 * n);
    const got = responses(fileRecords(dir, '.warc.gz'));
    expect(got.map((r) => r.fields['warc-target-uri'])).toEqual(
      Array.from({ length: n }, (_, i) => `http://a.example/p/${i}`),
    );
    for (const [i, r] of got.entries()) {
      const body = exchange(i).body;
      expect(r.block.subarray(r.block.length - body.length).equals(body)).toBe(true);
      expect(r.fields['warc-payload-digest']).toBe(sha1Of(body));
    }
    expect(heard.errors).toEqual([]);
  });

  it('dies mid-crawl: every tap settles, the sink refuses pages so they come back, the next start closes the file', async () => {
    const dir = tempDir();
    const heard: Heard = { errors: [], closed: [] };
    const s = sink(dir, heard);
    await s.open();
    for (let i = 0; i < 3; i++) await s.tap(exchange(i));
    await expect(s.write(page)).resolves.toBeUndefined();
    const pending = Array.from({ length: 40 }, (_, i) => s.tap(exchange(3 + i)));
    await s.endWriterThread();
    // A hang here would be a fetch held for ever: each settles, none rejects.
    await expect(Promise.all(pending)).resolves.toBeDefined();
    expect(heard.errors).toEqual(['writer_thread']);
    await expect(s.write(page)).rejects.toBeInstanceOf(SinkError);
    expect(s.tap(exchange(99))).toBeUndefined();
    await s.close();
    expect(readdirSync(dir).filter((f) => f.endsWith('.warc.gz.open'))).toHaveLength(1);

    const again = sink(dir, heard);
    await again.open();
    expect(heard.closed.map((f) => f.recovered)).toEqual([true]);
    const records = fileRecords(dir, '.warc.gz');
    expect(records[0]!.fields['warc-type']).toBe('warcinfo');
    const urls = responses(records).map((r) => r.fields['warc-target-uri']);
    // Whatever the thread wrote before it ended is whole, in order; the first three for sure.
    expect(urls).toEqual(Array.from({ length: urls.length }, (_, i) => `http://a.example/p/${i}`));
    expect(urls.length).toBeGreaterThanOrEqual(3);
    for (const r of records) expect(r.fields['warc-block-digest']).toBe(sha1Of(r.block));
    await again.close();
  });
});
