/**
 * The content of a `Refresh` header or of `<meta http-equiv="refresh" content="...">`, parsed
 * by the HTML standard's shared declarative refresh steps (html.spec.whatwg.org, "shared
 * declarative refresh steps"), which browsers follow for both. Pure: a string in, the delay
 * and the URL string (not yet resolved: the caller resolves it against the document's URL)
 * out. Test cases: web-platform-tests' attr-meta-http-equiv-refresh parsing matrix.
 */

import { isAsciiWhitespace } from './ascii-whitespace.js';

/**
 * Refreshes with at most this delay are followed as redirects by default (fetch.
 * maxRefreshDelaySeconds): Scrapy's METAREFRESH_MAXDELAY.
 */
export const DEFAULT_MAX_REFRESH_DELAY_SECONDS = 100;

export interface Refresh {
  /** Whole seconds: the fraction is ignored, as the standard says. */
  readonly delaySeconds: number;
  /** The URL as written, to resolve against the document; undefined: refresh the same document. */
  readonly url?: string;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** undefined when the standard's steps "return" without a refresh (the content is invalid). */
export function parseRefresh(input: string): Refresh | undefined {
  const n = input.length;
  if (n === 0) return undefined;
  let pos = 0;
  const at = (i: number) => (i < n ? input.charCodeAt(i) : -1);
  const skipSpace = () => {
    while (pos < n && isAsciiWhitespace(at(pos))) pos++;
  };
  skipSpace();
  const timeStart = pos;
  while (pos < n && isDigit(at(pos))) pos++;
  let delaySeconds = 0;
  if (pos === timeStart) {
    if (at(pos) !== 0x2e /* . */) return undefined;
  } else {
    delaySeconds = Number.parseInt(input.slice(timeStart, pos), 10);
  }
  // Digits and dots after the integer part are read and ignored.
  while (pos < n && (isDigit(at(pos)) || at(pos) === 0x2e)) pos++;
  if (pos < n) {
    const c = at(pos);
    if (c !== 0x3b /* ; */ && c !== 0x2c /* , */ && !isAsciiWhitespace(c)) return undefined;
    skipSpace();
    if (at(pos) === 0x3b || at(pos) === 0x2c) pos++;
    skipSpace();
  }
  if (pos >= n) return { delaySeconds };
  return { delaySeconds, url: urlPart(input, pos) };
}

/** Steps 11.1-11.10: an optional `url =` prefix, then an optional quoted string. */
function urlPart(input: string, start: number): string {
  const lower = (i: number) => (input[i] ?? '').toLowerCase();
  let pos = start;
  // Without the whole `url` `=` prefix, the URL is the rest of the input as it stands.
  const plain = input.slice(start);
  if (lower(pos) === 'u') {
    pos++;
    if (lower(pos) !== 'r') return plain;
    pos++;
    if (lower(pos) !== 'l') return plain;
    pos++;
    while (pos < input.length && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
    if (input[pos] !== '=') return plain;
    pos++;
    while (pos < input.length && isAsciiWhitespace(input.charCodeAt(pos))) pos++;
  }
  const quote = input[pos] === '"' || input[pos] === "'" ? input[pos] : undefined;
  if (quote !== undefined) pos++;
  const url = input.slice(pos);
  if (quote === undefined) return url;
  const end = url.indexOf(quote);
  return end < 0 ? url : url.slice(0, end);
}
