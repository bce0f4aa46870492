/**
 * ASCII whitespace (WHATWG infra): TAB, LF, FF, CR, SPACE. trim() and `\s` take more (U+00A0, U+FEFF, ...),
 * which the URL parser keeps as part of the URL.
 */

export function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

export function stripAsciiWhitespace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isAsciiWhitespace(s.charCodeAt(start))) start++;
  while (end > start && isAsciiWhitespace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

export const ASCII_WHITESPACE = '[\\t\\n\\f\\r ]';
