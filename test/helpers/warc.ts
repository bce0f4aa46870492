/**
 * A WARC reader for tests, independent of src/adapters/sink/warc: the file is gunzipped whole
 * (zlib reads the members one after another), records are cut by their Content-Length, and
 * digests are recomputed here (SHA-1 from node:crypto, Base32 written out bit by bit).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';

export interface TestRecord {
  readonly version: string;
  /** Header fields as written (first of each name), names lower case. */
  readonly fields: Record<string, string>;
  readonly block: Buffer;
}

export interface HttpMessage {
  readonly startLine: string;
  readonly headers: [string, string][];
  readonly body: Buffer;
}

/** Base32 (RFC 4648) the slow and obvious way: the bits as a string, five at a time. */
export function base32Slow(bytes: Buffer): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  while (bits.length % 5 !== 0) bits += '0';
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[Number.parseInt(bits.slice(i, i + 5), 2)];
  return out;
}

export function sha1Of(data: Buffer): string {
  return `sha1:${base32Slow(createHash('sha1').update(data).digest())}`;
}

/** Every record of an uncompressed WARC, in order; throws on anything that is not one. */
export function parseRecords(data: Buffer): TestRecord[] {
  const out: TestRecord[] = [];
  let at = 0;
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at);
    if (end < 0) throw new Error(`no header end after ${at}`);
    const lines = data.subarray(at, end).toString('utf8').split('\r\n');
    const version = lines[0]!;
    if (!/^WARC\/1\.[01]$/.test(version))
      throw new Error(`bad version line ${JSON.stringify(version)} at ${at}`);
    const fields: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim().toLowerCase();
      fields[name] ??= line.slice(colon + 1).trim();
    }
    const length = Number(fields['content-length']);
    const block = data.subarray(end + 4, end + 4 + length);
    if (block.length !== length) throw new Error(`record at ${at} is cut: ${block.length} of ${length}`);
    if (data.subarray(end + 4 + length, end + 8 + length).toString('latin1') !== '\r\n\r\n') {
      throw new Error(`record at ${at} does not end in CRLF CRLF`);
    }
    out.push({ version, fields, block });
    at = end + 8 + length;
  }
  return out;
}

/** A .warc.gz file's records (the whole file must gunzip: a torn member throws). */
export function readWarcGz(path: string): TestRecord[] {
  return parseRecords(gunzipSync(readFileSync(path)));
}

/** The uncompressed (.warc) file of wget. */
export function readWarcPlain(path: string): TestRecord[] {
  return parseRecords(readFileSync(path));
}

export function parseHttp(block: Buffer): HttpMessage {
  const end = block.indexOf('\r\n\r\n');
  const lines = block.subarray(0, end).toString('latin1').split('\r\n');
  const headers = lines.slice(1).map((l): [string, string] => {
    const colon = l.indexOf(':');
    return [l.slice(0, colon), l.slice(colon + 1).trim()];
  });
  return { startLine: lines[0]!, headers, body: block.subarray(end + 4) };
}

export function header(m: HttpMessage, name: string): string | undefined {
  return m.headers.find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
}

/** A chunked body's data (RFC 9112 §7.1), for wget's records, which keep the framing. */
export function dechunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = body.indexOf('\r\n', at);
    const size = Number.parseInt(body.subarray(at, eol).toString('latin1').split(';')[0]!, 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The .warc.gz files of a folder, sorted by name. */
export function warcFiles(dir: string, suffix = '.warc.gz'): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith(suffix))
    .sort()
    .map((n) => join(dir, n));
}
