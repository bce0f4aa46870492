/**
 * A new task's record (redis-lua.ts, the msgpack array FS ... FRU) packed by the client, so
 * that ENQUEUE_MANY does no per-URL table building or cmsgpack packing in Lua: the script
 * only puts the first seq (FC, known there alone) between the two parts, `head .. pack(q) ..
 * tail`. The bytes are those Lua's cmsgpack.pack writes for the same record (the smallest
 * encoding of each value; test/contract/redis-record.test.ts compares them with a real Redis),
 * so a record costs the same memory and reads the same, whichever side packed it.
 */

/** A new record's fields before and after the seq: {s, u, j, p, dp, 0, 0} and, when the
 *  request URL differs, {false x 6, ru}. */
export interface NewRecord {
  readonly ready: boolean;
  readonly url: string;
  readonly jobId: string;
  readonly priority: number;
  readonly depth: number;
  /** Packed like url; undefined when the request URL is url itself. */
  readonly requestUrl: string | undefined;
}

export function recordParts(r: NewRecord): { head: Buffer; tail: Buffer | undefined } {
  const out: number[] = [];
  // 8 fields, or 15 with the request URL (FRU); both fit a fixarray.
  out.push(0x90 | (r.requestUrl === undefined ? 8 : 15));
  str(out, r.ready ? 'r' : 'd');
  str(out, r.url);
  str(out, r.jobId);
  num(out, r.priority);
  num(out, r.depth);
  out.push(0, 0); // attempts, generation
  const head = Buffer.from(out);
  if (r.requestUrl === undefined) return { head, tail: undefined };
  const t: number[] = [0xc2, 0xc2, 0xc2, 0xc2, 0xc2, 0xc2];
  str(t, r.requestUrl);
  return { head, tail: Buffer.from(t) };
}

/** A string as cmsgpack packs it: fixstr, str8, str16 or str32 by its byte length. */
function str(out: number[], s: string): void {
  const b = Buffer.from(s, 'utf8');
  const n = b.length;
  if (n < 32) out.push(0xa0 | n);
  else if (n <= 0xff) out.push(0xd9, n);
  else if (n <= 0xffff) out.push(0xda, n >> 8, n & 0xff);
  else out.push(0xdb, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  for (const byte of b) out.push(byte);
}

/** A number as cmsgpack packs it: an integer in the smallest int encoding, else a float64. */
function num(out: number[], v: number): void {
  /** The tag, then x's low `bytes` bytes, big-endian. */
  const tagged = (tag: number, bytes: number, x: bigint) => {
    out.push(tag);
    for (let i = bytes - 1; i >= 0; i--) out.push(Number((x >> BigInt(8 * i)) & 0xffn));
  };
  if (!Number.isSafeInteger(v)) {
    const b = Buffer.alloc(8);
    b.writeDoubleBE(v);
    out.push(0xcb, ...b);
  } else if (v >= 0) {
    if (v <= 0x7f) out.push(v);
    else if (v <= 0xff) out.push(0xcc, v);
    else if (v <= 0xffff) out.push(0xcd, v >> 8, v & 0xff);
    else if (v <= 0xffffffff) tagged(0xce, 4, BigInt(v));
    else tagged(0xcf, 8, BigInt(v));
  } else if (v >= -32) out.push(v & 0xff);
  else if (v >= -128) out.push(0xd0, v & 0xff);
  else if (v >= -32768) tagged(0xd1, 2, BigInt.asUintN(16, BigInt(v)));
  else if (v >= -2147483648) tagged(0xd2, 4, BigInt.asUintN(32, BigInt(v)));
  else tagged(0xd3, 8, BigInt.asUintN(64, BigInt(v)));
}
