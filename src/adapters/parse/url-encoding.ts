/**
 * Links in a page not encoded in UTF-8 resolve as a browser resolves them: the URL standard's
 * parser takes the document's encoding and percent-encodes the query in it (a GBK page's
 * `href="/s?q=价格"` is requested as `/s?q=%BC%DB%B8%F1`), while the path stays UTF-8. Node's
 * URL parser only knows UTF-8, so the query is re-encoded here with the URL standard's
 * "percent-encode after encoding" (@exodus/bytes); characters the encoding cannot represent
 * become `&#NNNN;`, percent-encoded, as the standard says.
 */
import '@exodus/bytes/encoding.js'; // the legacy multi-byte encodings, for percentEncodeAfterEncoding
import { percentEncodeAfterEncoding } from '@exodus/bytes/whatwg.js';

/** The special-query percent-encode set beyond C0 controls (http and https are special). */
const SPECIAL_QUERY_SET = ' "#\'<>';

/**
 * The encoding a document's URLs put their query in, or undefined for UTF-8 (the URL
 * standard's "get an output encoding": UTF-16 and replacement documents use UTF-8).
 */
export function queryEncodingOf(documentEncoding: string | undefined): string | undefined {
  if (documentEncoding === undefined || documentEncoding === 'utf-8') return undefined;
  if (documentEncoding.startsWith('utf-16') || documentEncoding === 'replacement') return undefined;
  return documentEncoding;
}

/**
 * Re-encodes the query of `url`, parsed from `href`, in `encoding`. Only a query with
 * non-ASCII characters changes: ASCII is the same bytes in every encoding a page can declare.
 */
export function encodeQueryAs(url: URL, href: string, encoding: string): void {
  // What the URL parser reads of the href: no tab or newline, no leading/trailing C0 or space.
  const input = href.replace(/[\t\n\r]/g, '').replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, '');
  const q = input.indexOf('?');
  if (q === -1) return;
  const hash = input.indexOf('#', q);
  const raw = input.slice(q + 1, hash === -1 ? undefined : hash);
  if (!/[^\x00-\x7f]/.test(raw)) return;
  try {
    url.search = `?${percentEncodeAfterEncoding(encoding, raw, SPECIAL_QUERY_SET)}`;
  } catch {
    // An encoding the encoder does not offer keeps the UTF-8 query the URL parser made.
  }
}
