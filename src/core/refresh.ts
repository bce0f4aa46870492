/** `Refresh` header and `<meta http-equiv=refresh>`: the HTML standard's shared declarative refresh steps. Pure. */

import { isAsciiWhitespace } from './ascii-whitespace.js';

/** Scrapy's METAREFRESH_MAXDELAY. */
export const DEFAULT_MAX_REFRESH_DELAY_SECONDS = 100;

export interface Refresh {
  /** The fraction is ignored, as the standard says. */
  readonly delaySeconds: number;
  /** Unresolved; undefined: refresh the same document. */
  readonly url?: string;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

/** undefined when the standard's steps return without a refresh. */
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

/** Steps 11.1-11.10. */
function urlPart(input: string, start: number): string {
  const lower = (i: number) => (input[i] ?? '').toLowerCase();
  let pos = start;
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
