/**
 * ASCII whitespace as the WHATWG standards define it (infra.spec.whatwg.org): TAB, LF, FF, CR
 * and SPACE. HTML strips only these around a URL it reads from an attribute ("a valid URL
 * potentially surrounded by spaces"), and splits token lists (`rel`) on them. JavaScript's
 * trim() and `\s` take far more: VT, U+00A0, U+1680, U+2000-200A, U+2028, U+2029, U+202F,
 * U+205F, U+3000 and U+FEFF, which the URL parser keeps as part of the URL (percent-encoded):
 * `href="\u00a0/x"` is `/%C2%A0/x`, never `/x`.
 */

export function isAsciiWhitespace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
}

/** `s` without its leading and trailing ASCII whitespace ("strip leading and trailing ASCII whitespace"). */
export function stripAsciiWhitespace(s: string): string {
  let start = 0;
  let end = s.length;
  while (start < end && isAsciiWhitespace(s.charCodeAt(start))) start++;
  while (end > start && isAsciiWhitespace(s.charCodeAt(end - 1))) end--;
  return start === 0 && end === s.length ? s : s.slice(start, end);
}

/** A character class of ASCII whitespace, for regexes that split or delimit on it. */
export const ASCII_WHITESPACE = '[\\t\\n\\f\\r ]';
