/**
 * Character encodings of HTML bodies, decided as the WHATWG HTML standard's encoding sniffing
 * algorithm decides them (https://html.spec.whatwg.org/#determining-the-character-encoding) and
 * decoded as the WHATWG Encoding standard says:
 *
 * 1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE) wins over everything;
 * 2. then the `charset` parameter of Content-Type, when its label is one the standard knows
 *    (`iso-8859-1` and `latin1` mean windows-1252, `gb2312` means GBK);
 * 3. then `<meta charset>` or `<meta http-equiv="Content-Type" content="...charset=...">`
 *    found by the prescan of the first 1024 bytes (encoding-sniffer, which also applies the
 *    rule that a meta naming UTF-16 means UTF-8 and x-user-defined means windows-1252);
 * 4. else UTF-8 when the bytes are valid UTF-8 (a body cut mid-character at the size cap
 *    still counts), otherwise windows-1252, the default of browsers in most locales.
 *
 * UTF-8 is decoded by the platform's TextDecoder (the fast path: nothing else runs for a page
 * that declares or is UTF-8). Every other encoding is decoded by @exodus/bytes, which follows
 * the Encoding standard's indexes: Node's ICU decoders do not (on Node 20 they drop bytes
 * 0x80-0x9F of windows-1252, so "€12" would read "12"). Decoding never throws: bytes that are
 * not valid in the encoding become U+FFFD.
 */
import { isUtf8 } from 'node:buffer';
import { labelToName, TextDecoder as WhatwgTextDecoder } from '@exodus/bytes/encoding.js';
import { ResultType, Sniffer } from 'encoding-sniffer/sniffer';

export type EncodingSource = 'bom' | 'header' | 'meta' | 'default';

export interface DecodedHtml {
  readonly text: string;
  /** The encoding's WHATWG name, lower case ('utf-8', 'gbk', 'shift_jis', 'windows-1252'). */
  readonly encoding: string;
  readonly source: EncodingSource;
  /** The page declared a charset the Encoding standard does not know, so the default applied. */
  readonly fallback: boolean;
}

const PRESCAN_BYTES = 1024;
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });
const decoders = new Map<string, (bytes: Uint8Array) => string>();

/** The encoding a WHATWG label names, lower case; undefined for a label the standard does not know. */
export function encodingOfLabel(label: string): string | undefined {
  // The common case without the label table: most pages declare UTF-8 in these spellings.
  if (label === 'utf-8' || label === 'UTF-8' || label === 'utf8') return 'utf-8';
  return labelToName(label.trim())?.toLowerCase() ?? undefined;
}

/** The `charset` parameter of a Content-Type header value (quoted or not, any case), if any. */
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

/** Valid UTF-8, except possibly for a sequence cut short at the end (a body truncated at a cap). */
function looksUtf8(body: Uint8Array): boolean {
  if (isUtf8(body)) return true;
  // Drop a trailing lead byte and its continuation bytes (at most 3 bytes) and try again.
  let end = body.length;
  for (let k = 0; k < 3 && end > 0 && (body[end - 1]! & 0xc0) === 0x80; k++) end--;
  if (end > 0 && body[end - 1]! >= 0xc0) end--;
  return end < body.length && isUtf8(body.subarray(0, end));
}

/** A `charset=` in the prescan window whose label the sniffer did not take: a declared but unknown charset. */
function declaresUnknownCharset(head: Uint8Array): boolean {
  const text = Buffer.from(head.buffer, head.byteOffset, head.byteLength).toString('latin1');
  const m = /<meta[^>]*charset\s*=\s*["']?([^"'\s;>/]+)/i.exec(text);
  return m !== null && encodingOfLabel(m[1]!) === undefined;
}

/** Decides the encoding of an HTML body (see the module comment for the order). */
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
  // Only its meta prescan is taken: the BOM and the header were decided above with the full
  // label table, and an XML declaration does not decide an HTML document's encoding.
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
    // The Encoding standard's replacement decoder: one U+FFFD for any non-empty input
    // (labels such as iso-2022-kr, whose content must not be guessed at).
    decode = (bytes) => (bytes.length === 0 ? '' : '\uFFFD');
  } else {
    const decoder = new WhatwgTextDecoder(encoding, { fatal: false });
    decode = (bytes) => decoder.decode(bytes);
  }
  decoders.set(encoding, decode);
  return decode;
}

/** Decodes a body in an encoding named by `encodingOfLabel`; never throws. */
export function decodeAs(body: Uint8Array, encoding: string): string {
  return decoderFor(encoding)(body);
}

/**
 * Decodes an XML body (sitemaps, RSS and Atom feeds) as XML 1.0 Appendix F and RFC 7303 say:
 * a BOM, then the `charset` of Content-Type, then the `encoding` of the XML declaration, then
 * UTF-8. Sitemaps must be UTF-8, but feeds in windows-1251 or ISO-8859-1 are common, and
 * their declaration says so. Bytes that are not valid UTF-8 with nothing declared are read as
 * windows-1252, as feed readers do, rather than turned into U+FFFD. Never throws.
 */
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

/** Sniffs and decodes an HTML body. */
export function decodeHtml(body: Uint8Array, contentTypeHeader: string | undefined): DecodedHtml {
  const sniffed = sniffHtmlEncoding(body, contentTypeHeader);
  return { ...sniffed, text: decodeAs(body, sniffed.encoding) };
}
