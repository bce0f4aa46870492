/**
 * HTML encodings as the WHATWG sniffing algorithm decides them: BOM, Content-Type charset, meta
 * prescan, else UTF-8 if valid, else windows-1252 (docs/encoding.md). Non-UTF-8 is decoded by
 * @exodus/bytes: Node's ICU decoders drop bytes of windows-1252. Never throws.
 */
import { isUtf8 } from 'node:buffer';
import { labelToName, TextDecoder as WhatwgTextDecoder } from '@exodus/bytes/encoding.js';
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';

export type EncodingSource = 'bom' | 'header' | 'meta' | 'default';

export interface DecodedHtml {
  readonly text: string;
  /** WHATWG name, lower case. */
  readonly encoding: string;
  readonly source: EncodingSource;
  /** A declared charset the standard does not know: the default applied. */
  readonly fallback: boolean;
}

const PRESCAN_BYTES = 1024;
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });
const decoders = new Map<string, (bytes: Uint8Array) => string>();

export function encodingOfLabel(label: string): string | undefined {
  if (label === 'utf-8' || label === 'UTF-8' || label === 'utf8') return 'utf-8';
  return labelToName(label.trim())?.toLowerCase() ?? undefined;
}

export function charsetParam(contentType: string | undefined): string | undefined {
  if (contentType === undefined) return undefined;
  const m = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType);
  if (!m) return undefined;
  const value = (m[2] ?? m[1] ?? '').trim();
  return value === '' ? undefined : value;
}

function bomEncoding(body: Uint8Array): string | undefined {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  return undefined;
}

/** A body truncated at a cap may end mid-sequence. */
function looksUtf8(body: Uint8Array): boolean {
  if (isUtf8(body)) return true;
  let end = body.length;
  for (let k = 0; k < 3 && end > 0 && (body[end - 1]! & 0xc0) === 0x80; k++) end--;
  if (end > 0 && body[end - 1]! >= 0xc0) end--;
  return end < body.length && isUtf8(body.subarray(0, end));
}

function declaresUnknownCharset(head: Uint8Array): boolean {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  const m = /<meta[^>]*charset\s*=\s*["']?([^"'\s;>/]+)/i.exec(text);
  return m !== null && encodingOfLabel(m[1]!) === undefined;
}

export function sniffHtmlEncoding(
  body: Uint8Array,
  contentTypeHeader: string | undefined,
): { encoding: string; source: EncodingSource; fallback: boolean } {
  const bom = bomEncoding(body);
  if (bom) return { encoding: bom, source: 'bom', fallback: false };
  const label = charsetParam(contentTypeHeader);
  const declared = label === undefined ? undefined : encodingOfLabel(label);
  if (declared) return { encoding: declared, source: 'header', fallback: false };
  let fallback = label !== undefined;
  const head = body.subarray(0, PRESCAN_BYTES);
  // Only the meta prescan: an XML declaration does not decide an HTML document's encoding.
  const sniffer = new Sniffer({ maxBytes: PRESCAN_BYTES });
  sniffer.write(head);
  const meta = sniffer.resultType === ResultType.META_TAG ? encodingOfLabel(sniffer.encoding) : undefined;
  if (meta) return { encoding: meta, source: 'meta', fallback };
  fallback ||= declaresUnknownCharset(head);
  return { encoding: looksUtf8(body) ? 'utf-8' : 'windows-1252', source: 'default', fallback };
}

function decoderFor(encoding: string): (bytes: Uint8Array) => string {
  let decode = decoders.get(encoding);
  if (decode) return decode;
  if (encoding === 'utf-8') {
    decode = (bytes) => utf8Decoder.decode(bytes);
  } else if (encoding === 'replacement') {
    // The standard's replacement decoder (iso-2022-kr and such must not be guessed at).
    decode = (bytes) => (bytes.length === 0 ? '' : '\uFFFD');
  } else {
    const decoder = new WhatwgTextDecoder(encoding, { fatal: false });
    decode = (bytes) => decoder.decode(bytes);
  }
  decoders.set(encoding, decode);
  return decode;
}

export function decodeAs(body: Uint8Array, encoding: string): string {
  return decoderFor(encoding)(body);
}

/** XML 1.0 Appendix F and RFC 7303: feeds in legacy encodings are common (docs/encoding.md). */
export function decodeXml(body: Uint8Array, contentTypeHeader: string | undefined): string {
  const bom = bomEncoding(body);
  if (bom) return decodeAs(body, bom);
  const label = charsetParam(contentTypeHeader);
  const declared = label === undefined ? undefined : encodingOfLabel(label);
  if (declared) return decodeAs(body, declared);
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, PRESCAN_BYTES));
  const m = /^\s*<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/.exec(head.toString('latin1'));
  const xml = m ? encodingOfLabel(m[1]!) : undefined;
  // A declaration of UTF-16 without a BOM cannot be right for bytes read as ASCII: ignored.
  if (xml && !xml.startsWith('utf-16')) return decodeAs(body, xml);
  return decodeAs(body, looksUtf8(body) ? 'utf-8' : 'windows-1252');
}

export function decodeHtml(body: Uint8Array, contentTypeHeader: string | undefined): DecodedHtml {
  const sniffed = sniffHtmlEncoding(body, contentTypeHeader);
  return { ...sniffed, text: decodeAs(body, sniffed.encoding) };
}
