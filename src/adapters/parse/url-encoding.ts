/**
 * A browser percent-encodes a link's query in the document's encoding (a GBK page's `?q=价格`
 * goes out as `?q=%BC%DB%B8%F1`); Node's URL parser only knows UTF-8, so it is redone here.
 */
import '@exodus/bytes/encoding.js'; // the legacy multi-byte encodings, for percentEncodeAfterEncoding
import { percentEncodeAfterEncoding } from '@exodus/bytes/whatwg.js';

const SPECIAL_QUERY_SET = ' "#\'<>';

/** The URL standard's "get an output encoding"; undefined for UTF-8. */
export function queryEncodingOf(documentEncoding: string | undefined): string | undefined {
  if (documentEncoding === undefined || documentEncoding === 'utf-8') return undefined;
  if (documentEncoding.startsWith('utf-16') || documentEncoding === 'replacement') return undefined;
  return documentEncoding;
}

export function encodeQueryAs(url: URL, href: string, encoding: string): void {
  // As the URL parser strips the href.
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
