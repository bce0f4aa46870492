/**
 * A page's word set, hashed (sorted distinct 32-bit): words not shingles, as sort variants reorder a page. Byte level:
 * bytes >= 0x80 are word characters, markup and script/style/template skipped, ASCII case folded. Numbers are words
 * too: pages that say nothing but "page 700" are 700 pages, not a series.
 */

/** The smallest hashes are kept. */
export const MAX_WORDS = 8192;
/** A page's text beyond this changes nothing. */
const MAX_SCAN_BYTES = 512 * 1024;

export type Fingerprint = Uint32Array;

const WORD = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  WORD[c] =
    (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c >= 0x80 ? 1 : 0;
}

const SKIPPED = ['script', 'style', 'template'];

function namedAt(b: Uint8Array, at: number, name: string, end: number): boolean {
  if (at + name.length > end) return false;
  for (let k = 0; k < name.length; k++)
    if (((b[at + k] as number) | 0x20) !== name.charCodeAt(k)) return false;
  // '<scripts' is not '<script'.
  return at + name.length === end || WORD[b[at + name.length] as number] === 0;
}

function rawTextEnd(b: Uint8Array, i: number, end: number): number {
  for (const name of SKIPPED) {
    if (!namedAt(b, i + 1, name, end)) continue;
    let from = i + 1 + name.length;
    for (;;) {
      const close = b.indexOf(0x3c, from);
      if (close < 0 || close >= end) return end;
      if (b[close + 1] === 0x2f && namedAt(b, close + 2, name, end)) return close;
      from = close + 1;
    }
  }
  return -1;
}

function skipMarkup(b: Uint8Array, i: number, end: number): number {
  const next = b[i + 1] as number;
  if (next === 0x21 && b[i + 2] === 0x2d && b[i + 3] === 0x2d) {
    const close = Buffer.prototype.indexOf.call(b, '-->', i + 4);
    return close < 0 || close >= end ? end : close + 3;
  }
  const isTag = WORD[next] === 1 || next === 0x2f || next === 0x21 || next === 0x3f;
  if (!isTag) return i + 1;
  const raw = WORD[next] === 1 && next < 0x80 ? rawTextEnd(b, i, end) : -1;
  const from = raw >= 0 ? raw + 2 : i + 1;
  const gt = b.indexOf(0x3e, from);
  return gt < 0 || gt >= end ? end : gt + 1;
}

/** murmur3's finaliser, so the mod-m choice does not follow the text. */
function fmix(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Entities split words and are not decoded. */
export function fingerprint(body: Uint8Array): Fingerprint {
  const end = Math.min(body.length, MAX_SCAN_BYTES);
  let n = 0;
  let i = 0;
  while (i < end) {
    const c = body[i] as number;
    if (c === 0x3c) {
      i = skipMarkup(body, i, end);
      continue;
    }
    if (c === 0x26) {
      i = skipEntity(body, i, end);
      continue;
    }
    if (WORD[c] === 0) {
      i++;
      continue;
    }
    // FNV-1a, ASCII folded to lower case.
    let h = 0x811c9dc5;
    while (i < end) {
      const w = body[i] as number;
      if (WORD[w] === 0) break;
      h = Math.imul(h ^ (w >= 0x41 && w <= 0x5a ? w | 0x20 : w), 0x01000193);
      i++;
    }
    if (n === scratch.length) scratch = grow(scratch);
    scratch[n++] = fmix(h);
  }
  return toSample(scratch, n);
}

/** Reused between pages: no array of boxed numbers. */
let scratch: Uint32Array = new Uint32Array(4096);

function grow(a: Uint32Array): Uint32Array {
  const b = new Uint32Array(a.length * 2);
  b.set(a);
  return b;
}

function skipEntity(b: Uint8Array, i: number, end: number): number {
  let j = i + 1;
  if (b[j] === 0x23) j++;
  while (j < end && j - i < 12 && WORD[b[j] as number] === 1) j++;
  return b[j] === 0x3b ? j + 1 : i + 1;
}

function toSample(words: Uint32Array, n: number): Fingerprint {
  const sorted = words.subarray(0, n).sort();
  let distinct = 0;
  for (let k = 0; k < n; k++) {
    const v = sorted[k] as number;
    if (distinct === 0 || sorted[distinct - 1] !== v) sorted[distinct++] = v;
  }
  return sorted.slice(0, Math.min(distinct, MAX_WORDS));
}

export function intersectionSize(a: Fingerprint, b: Fingerprint): number {
  let i = 0;
  let j = 0;
  let n = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      n++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return n;
}

export function without(a: Fingerprint, b: Fingerprint | undefined): Fingerprint {
  if (b === undefined || b.length === 0) return a;
  const out: number[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    while (j < b.length && (b[j] as number) < x) j++;
    if (j >= b.length || b[j] !== x) out.push(x);
  }
  return Uint32Array.from(out);
}

export function intersect(a: Fingerprint, b: Fingerprint): Fingerprint {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return Uint32Array.from(out);
}

/** Jaccard (Broder 1997); two empty samples are alike. */
export function resemblance(a: Fingerprint, b: Fingerprint): number {
  if (a.length === 0 && b.length === 0) return 1;
  const common = intersectionSize(a, b);
  return common / (a.length + b.length - common);
}

export function encodeFingerprint(f: Fingerprint): string {
  const bytes = Buffer.alloc(f.length * 4);
  for (let k = 0; k < f.length; k++) bytes.writeUInt32LE(f[k] as number, k * 4);
  return bytes.toString('base64');
}

/** undefined for anything it did not write. */
export function decodeFingerprint(s: string): Fingerprint | undefined {
  const bytes = Buffer.from(s, 'base64');
  if (bytes.length % 4 !== 0) return undefined;
  const out = new Uint32Array(bytes.length / 4);
  for (let k = 0; k < out.length; k++) out[k] = bytes.readUInt32LE(k * 4);
  for (let k = 1; k < out.length; k++) if ((out[k] as number) <= (out[k - 1] as number)) return undefined;
  return out;
}
