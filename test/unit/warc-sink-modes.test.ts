/**
 * The WARC sink writing on the event loop (one core) and in its writer thread (more): the same
 * records either way, in the order the exchanges came, and off the loop an exchange's promise
 * resolves only once its records are in the file (the fetch waits for it).
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { SinkError } from '../../src/core/errors.js';
import type { HttpExchange } from '../../src/ports/fetcher.js';
import { tempDir } from '../helpers/cli.js';
import { parseRecords, sha1Of, type TestRecord } from '../helpers/warc.js';
import { testWarcSink } from '../helpers/warc-sink.js';

const sink = testWarcSink;

/** A page of `size` bytes that does not compress to nothing. */
function exchange(i: number, size: number): HttpExchange {
  let body = '';
  while (body.length < size) body += `<p>item ${i} line ${body.length} ${(body.length * 7919) % 1000}</p>\n`;
  return {
    url: `http://a.example/p/${i}`,
    method: 'GET',
    requestHead: Buffer.from(`GET /p/${i} HTTP/1.1\r\nhost: a.example\r\n\r\n`, 'latin1'),
    date: new Date(Date.UTC(2026, 11, 7, 12, 0, i)),
    status: 200,
    statusText: 'OK',
    responseHeaders: [['content-type', 'text/html']],
    body: Buffer.from(body.slice(0, size)),
  };
}

/** Each response's member length in the index, by URL. */
function indexedLengths(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith('.cdxj'))) {
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n').filter(Boolean)) {
      const j = JSON.parse(line.slice(line.indexOf('{'))) as { url: string; length: string };
      out.set(j.url, Number(j.length));
    }
  }
  return out;
}

function openFile(dir: string): TestRecord[] {
  const name = readdirSync(dir).find((n) => n.endsWith('.warc.gz.open'));
  return name ? parseRecords(gunzipSync(readFileSync(join(dir, name)))) : [];
}

const responses = (records: readonly TestRecord[]) =>
  records.filter((r) => r.fields['warc-type'] === 'response').map((r) => r.fields['warc-target-uri']);

describe('WarcSink on and off the event loop', () => {
  // Big and small pages interleaved: a small one must not overtake a big one posted before it.
  const sizes = [60_000, 300, 20_000, 0, 5_000, 100, 80_000, 4_000];

  for (const offLoop of [false, true]) {
    it(`${offLoop ? 'off the loop' : 'on the loop'}: records in tap order, each there once its tap settles`, async () => {
      const dir = tempDir();
      const s = sink(dir, offLoop);
      await s.open();
      const taps = sizes.map((size, i) => {
        const kept = s.tap(exchange(i, size));
        expect(kept === undefined).toBe(!offLoop);
        return kept;
      });
      for (const [i, kept] of taps.entries()) {
        await kept;
        expect(responses(openFile(dir))).toContain(`http://a.example/p/${i}`);
      }
      await s.close();
      const name = readdirSync(dir).find((n) => n.endsWith('.warc.gz'))!;
      const records = parseRecords(gunzipSync(readFileSync(join(dir, name))));
      expect(records.map((r) => r.fields['warc-type'])).toEqual([
        'warcinfo',
        ...sizes.flatMap(() => ['request', 'response']),
      ]);
      expect(responses(records)).toEqual(sizes.map((_, i) => `http://a.example/p/${i}`));
      for (const [i, r] of records.filter((x) => x.fields['warc-type'] === 'response').entries()) {
        expect(r.fields['content-length']).toBe(String(r.block.length));
        const body = exchange(i, sizes[i]!).body;
        expect(r.block.subarray(r.block.length - body.length).equals(body)).toBe(true);
        expect(r.fields['warc-payload-digest']).toBe(sha1Of(body));
        expect(r.fields['warc-block-digest']).toBe(sha1Of(r.block));
      }
    });
  }

  for (const offLoop of [false, true]) {
    it(`${offLoop ? 'in its thread' : 'on the loop'}: a write the disk refuses fails the sink; its pages come back, nothing is written after`, async () => {
      const dir = tempDir();
      const errors: string[] = [];
      // Each exchange gets a file of its own, so the second needs the folder again.
      const s = testWarcSink(dir, offLoop, { error: (reason) => errors.push(reason) }, { maxFileBytes: 1 });
      await s.open();
      await s.tap(exchange(0, 100));
      await s.write({ url: 'http://a.example/p/0' } as never);
      rmSync(dir, { recursive: true, force: true });
      await s.tap(exchange(1, 100));
      expect(errors).toEqual(['write']);
      await expect(s.write({ url: 'http://a.example/p/1' } as never)).rejects.toThrow(SinkError);
      expect(s.tap(exchange(2, 100))).toBeUndefined();
      await s.close();
    });
  }

  it('stores a body that came compressed (Content-Encoding, an image) and compresses the rest', async () => {
    const dir = tempDir();
    const s = sink(dir, true);
    await s.open();
    // Compressible bytes, so a member that compressed them would be far smaller than they are.
    const plain = exchange(0, 20_000);
    const encoded = { ...exchange(1, 20_000), responseHeaders: [['Content-Encoding', 'br']] as const };
    const image = { ...exchange(2, 20_000), responseHeaders: [['content-type', 'image/webp']] as const };
    const identity = { ...exchange(3, 20_000), responseHeaders: [['content-encoding', 'identity']] as const };
    await Promise.all([plain, encoded, image, identity].map((ex) => s.tap(ex)));
    await s.close();
    const lengths = indexedLengths(dir);
    expect(lengths.get(plain.url)).toBeLessThan(10_000);
    expect(lengths.get(encoded.url)).toBeGreaterThan(20_000);
    expect(lengths.get(image.url)).toBeGreaterThan(20_000);
    expect(lengths.get(identity.url)).toBeLessThan(10_000);
    const name = readdirSync(dir).find((n) => n.endsWith('.warc.gz'))!;
    const bodies = parseRecords(gunzipSync(readFileSync(join(dir, name))))
      .filter((r) => r.fields['warc-type'] === 'response')
      .map((r) => r.block.subarray(r.block.length - 20_000));
    expect(bodies.map((b, i) => b.equals([plain, encoded, image, identity][i]!.body))).toEqual([
      true,
      true,
      true,
      true,
    ]);
  });
});
