/** Member by member, so a restart can cut a crashed `.open` file to its last whole record. */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import type { IndexEntry } from './cdxj.js';

export interface ReadRecord {
  /** The member's offset and length in the file. */
  readonly offset: number;
  readonly length: number;
  /** WARC header fields, names lower case. */
  readonly fields: ReadonlyMap<string, string>;
  readonly block: Buffer;
}

const WINDOW = 16 * 1024 * 1024;

/** Length of a gzip member's header (RFC 1952 §2.3), or -1 if `buf` is no whole gzip header. */
function gzipHeaderLength(buf: Buffer): number {
  if (buf.length < 10 || buf[0] !== 0x1f || buf[1] !== 0x8b || buf[2] !== 8) return -1;
  const flags = buf[3]!;
  let at = 10;
  if (flags & 4) {
    if (buf.length < at + 2) return -1;
    at += 2 + buf.readUInt16LE(at);
  }
  for (const bit of [8, 16]) {
    if (flags & bit) {
      const nul = buf.indexOf(0, at);
      if (nul < 0) return -1;
      at = nul + 1;
    }
  }
  if (flags & 2) at += 2;
  return at <= buf.length ? at : -1;
}

/** One member at the start of `buf`: its record text and length, or undefined if not whole. */
function inflateMember(buf: Buffer): { data: Buffer; length: number } | undefined {
  const header = gzipHeaderLength(buf);
  if (header < 0) return undefined;
  try {
    const { buffer, engine } = inflateRawSync(buf.subarray(header), { info: true }) as unknown as {
      buffer: Buffer;
      engine: { bytesWritten: number };
    };
    const length = header + engine.bytesWritten + 8;
    if (length > buf.length) return undefined;
    return { data: buffer, length };
  } catch {
    return undefined;
  }
}

function parseRecord(data: Buffer, offset: number, length: number): ReadRecord | undefined {
  const end = data.indexOf('\r\n\r\n');
  if (end < 0 || !data.subarray(0, 9).toString('latin1').startsWith('WARC/')) return undefined;
  const fields = new Map<string, string>();
  for (const line of data.subarray(0, end).toString('utf8').split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) fields.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const blockLength = Number(fields.get('content-length'));
  if (!Number.isSafeInteger(blockLength) || end + 4 + blockLength > data.length) return undefined;
  return { offset, length, fields, block: data.subarray(end + 4, end + 4 + blockLength) };
}

/** `end`: where the last whole record ends. */
export function readWarc(path: string, onRecord?: (r: ReadRecord) => void): { end: number; records: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    let offset = 0;
    let records = 0;
    let window = Buffer.alloc(0);
    let windowAt = -1;
    let want = WINDOW;
    while (offset < size) {
      const need = Math.min(want, size - offset);
      if (windowAt < 0 || windowAt + window.length < offset + need) {
        window = Buffer.alloc(need);
        readSync(fd, window, 0, need, offset);
        windowAt = offset;
      }
      const member = inflateMember(window.subarray(offset - windowAt));
      if (!member) {
        // A member longer than what is loaded: load more, unless the rest of the file is loaded.
        if (windowAt + window.length >= size) break;
        want = (windowAt + window.length - offset) * 2;
        windowAt = -1;
        continue;
      }
      const record = parseRecord(member.data, offset, member.length);
      if (!record) break;
      onRecord?.(record);
      records++;
      offset += member.length;
      want = WINDOW;
    }
    return { end: offset, records };
  } finally {
    closeSync(fd);
  }
}

export function indexEntryOf(r: ReadRecord): IndexEntry | undefined {
  const type = r.fields.get('warc-type');
  if (type !== 'response' && type !== 'revisit') return undefined;
  const url = r.fields.get('warc-target-uri') ?? '';
  const head = r.block.subarray(0, Math.max(0, r.block.indexOf('\r\n\r\n'))).toString('latin1');
  const status = Number(/^HTTP\/\S+\s+(\d{3})/.exec(head)?.[1] ?? 0);
  const ct = /\r\ncontent-type:\s*([^;\r\n]*)/i.exec(head)?.[1]?.trim().toLowerCase();
  const digest = (r.fields.get('warc-payload-digest') ?? '').replace(/^sha1:/, '');
  return {
    url,
    date: new Date(r.fields.get('warc-date') ?? 0),
    mime: type === 'revisit' ? 'warc/revisit' : ct || 'unk',
    status,
    digest,
    offset: r.offset,
    length: r.length,
  };
}
