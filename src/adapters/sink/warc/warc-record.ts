/** WARC/1.1 records (ISO 28500:2017), digests in Base32 SHA-1 as Heritrix and wget write them. */
import { createHash, randomUUID } from 'node:crypto';
import { gzipSync } from 'node:zlib';

export type WarcFields = readonly (readonly [string, string])[];

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/** RFC 4648 Base32 without padding (a SHA-1 is 160 bits: 32 characters exactly). */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function sha1Digest(...parts: readonly Uint8Array[]): string {
  const h = createHash('sha1');
  for (const p of parts) h.update(p);
  return `sha1:${base32(h.digest())}`;
}

export function newRecordId(): string {
  return `<urn:uuid:${randomUUID()}>`;
}

/** WARC 1.1 allows fractions of a second (§5.4): milliseconds, as the crawl measured them. */
export function warcDate(d: Date): string {
  return d.toISOString();
}

/** A field value on one line: CR and LF cannot be part of one (they would start a field). */
function oneLine(v: string): string {
  return /[\r\n]/.test(v) ? v.replace(/[\r\n]+/g, ' ') : v;
}

export function serialiseRecord(fields: WarcFields, block: readonly Buffer[]): Buffer[] {
  const length = block.reduce((n, b) => n + b.length, 0);
  let head = 'WARC/1.1\r\n';
  for (const [k, v] of fields) head += `${k}: ${oneLine(v)}\r\n`;
  head += `Content-Length: ${length}\r\n\r\n`;
  return [Buffer.from(head, 'utf8'), ...block, Buffer.from('\r\n\r\n', 'latin1')];
}

/** One record as one gzip member (WARC 1.1 Annex D: a reader can start at any member). */
export function gzipMember(parts: readonly Buffer[], level: number): Buffer {
  return gzipSync(joined(parts), { level });
}

const joined = (parts: readonly Buffer[]): Buffer => (parts.length === 1 ? parts[0]! : Buffer.concat(parts));
