// A new task's record packed by the client (ENQUEUE_MANY puts the seq between the parts), the same
// bytes as Lua's cmsgpack.pack (test/contract/redis-record.test.ts).

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

/** A growing buffer of big-endian binary fields (what Lua's struct.unpack reads). */
export class ByteWriter {
  #buf: Buffer;
  #len = 0;

  constructor(size = 1024) {
    this.#buf = Buffer.allocUnsafe(size);
  }

  get length(): number {
    return this.#len;
  }

  /** Makes room for n more bytes; answers where they go. */
  #room(n: number): number {
    const at = this.#len;
    if (at + n > this.#buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, at + n));
      this.#buf.copy(next, 0, 0, at);
      this.#buf = next;
    }
    this.#len = at + n;
    return at;
  }

  u8(v: number): void {
    const at = this.#room(1);
    this.#buf[at] = v;
  }

  u16(v: number): void {
    const at = this.#room(2);
    this.#buf.writeUInt16BE(v, at);
  }

  i16(v: number): void {
    const at = this.#room(2);
    this.#buf.writeInt16BE(v, at);
  }

  i32(v: number): void {
    const at = this.#room(4);
    this.#buf.writeInt32BE(v, at);
  }

  u32(v: number): void {
    const at = this.#room(4);
    this.#buf.writeUInt32BE(v, at);
  }

  f64(v: number): void {
    const at = this.#room(8);
    this.#buf.writeDoubleBE(v, at);
  }

  /** A u32 written earlier, at `at` (a length known only once its bytes are written). */
  setU32(at: number, v: number): void {
    this.#buf.writeUInt32BE(v, at);
  }

  /** A string's bytes, `bytes` of them (its UTF-8 length, or its length in latin1). */
  text(s: string, bytes: number, encoding: 'utf8' | 'latin1' = 'utf8'): void {
    const at = this.#room(bytes);
    this.#buf.write(s, at, bytes, encoding);
  }

  bytes(b: Uint8Array): void {
    const at = this.#room(b.length);
    this.#buf.set(b, at);
  }

  take(): Buffer {
    return this.#buf.subarray(0, this.#len);
  }
}

/** The record's head, {s, u, j, p, dp, 0, 0} in an array of 8 or 15 fields. */
export function writeHead(w: ByteWriter, r: NewRecord): void {
  // 8 fields, or 15 with the request URL (FRU); both fit a fixarray.
  w.u8(0x90 | (r.requestUrl === undefined ? 8 : 15));
  w.u8(0xa1);
  w.u8(r.ready ? 0x72 : 0x64); // 'r' / 'd'
  str(w, r.url);
  str(w, r.jobId);
  num(w, r.priority);
  num(w, r.depth);
  w.u8(0); // attempts
  w.u8(0); // generation
}

/** The record's tail after the seq: six falses, then the request URL. */
export function writeTail(w: ByteWriter, requestUrl: string): void {
  for (let i = 0; i < 6; i++) w.u8(0xc2);
  str(w, requestUrl);
}

/** A string as cmsgpack packs it: fixstr, str8, str16 or str32 by its byte length. */
function str(w: ByteWriter, s: string): void {
  const n = Buffer.byteLength(s, 'utf8');
  if (n < 32) w.u8(0xa0 | n);
  else if (n <= 0xff) {
    w.u8(0xd9);
    w.u8(n);
  } else if (n <= 0xffff) {
    w.u8(0xda);
    w.u8(n >> 8);
    w.u8(n & 0xff);
  } else {
    w.u8(0xdb);
    w.u32(n);
  }
  w.text(s, n);
}

/** A number as cmsgpack packs it: an integer in the smallest int encoding, else a float64. */
function num(w: ByteWriter, v: number): void {
  const int64 = (tag: number, x: bigint) => {
    w.u8(tag);
    for (let i = 7; i >= 0; i--) w.u8(Number((x >> BigInt(8 * i)) & 0xffn));
  };
  if (!Number.isSafeInteger(v)) {
    w.u8(0xcb);
    w.f64(v);
  } else if (v >= 0) {
    if (v <= 0x7f) w.u8(v);
    else if (v <= 0xff) {
      w.u8(0xcc);
      w.u8(v);
    } else if (v <= 0xffff) {
      w.u8(0xcd);
      w.u16(v);
    } else if (v <= 0xffffffff) {
      w.u8(0xce);
      w.u32(v);
    } else int64(0xcf, BigInt(v));
  } else if (v >= -32) w.u8(v & 0xff);
  else if (v >= -128) {
    w.u8(0xd0);
    w.u8(v & 0xff);
  } else if (v >= -32768) {
    w.u8(0xd1);
    w.i16(v);
  } else if (v >= -2147483648) {
    w.u8(0xd2);
    w.i32(v);
  } else int64(0xd3, BigInt.asUintN(64, BigInt(v)));
}

/** A stored record (a msgpack array as cmsgpack packs it) back into its fields, 0-based (prelude.lua
 *  FS ... FRU, less one): what TAKE answers, decoded here rather than by the script. */
export function decodeRecord(buf: Buffer): unknown[] {
  let at = 0;
  const u8 = () => buf[at++]!;
  const text = (n: number) => {
    const s = buf.toString('utf8', at, at + n);
    at += n;
    return s;
  };
  const skip = (n: number, v: number) => {
    at += n;
    return v;
  };
  const value = (): unknown => {
    const t = u8();
    if (t <= 0x7f) return t;
    if (t >= 0xe0) return t - 0x100;
    if (t >= 0xa0 && t <= 0xbf) return text(t & 0x1f);
    switch (t) {
      case 0xc0:
        return null;
      case 0xc2:
        return false;
      case 0xc3:
        return true;
      case 0xcc:
        return u8();
      case 0xcd:
        return skip(2, buf.readUInt16BE(at));
      case 0xce:
        return skip(4, buf.readUInt32BE(at));
      case 0xcf:
        return skip(8, Number(buf.readBigUInt64BE(at)));
      case 0xd0:
        return skip(1, buf.readInt8(at));
      case 0xd1:
        return skip(2, buf.readInt16BE(at));
      case 0xd2:
        return skip(4, buf.readInt32BE(at));
      case 0xd3:
        return skip(8, Number(buf.readBigInt64BE(at)));
      case 0xca:
        return skip(4, buf.readFloatBE(at));
      case 0xcb:
        return skip(8, buf.readDoubleBE(at));
      case 0xd9:
        return text(u8());
      case 0xda:
        return text(skip(2, buf.readUInt16BE(at)));
      case 0xdb:
        return text(skip(4, buf.readUInt32BE(at)));
    }
    throw new Error(`unexpected msgpack byte 0x${t.toString(16)} in a task record`);
  };
  const t = u8();
  let n: number;
  if (t >= 0x90 && t <= 0x9f) n = t & 0x0f;
  else if (t === 0xdc) n = skip(2, buf.readUInt16BE(at));
  else throw new Error(`a task record is a msgpack array, found 0x${t.toString(16)}`);
  const out = new Array<unknown>(n);
  for (let i = 0; i < n; i++) out[i] = value();
  return out;
}
