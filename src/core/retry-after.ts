import { type Bound, MS } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';

export interface RetryAfterOptions {
  /** A server must not park a host for days. @default 3600000 */
  readonly maxMs?: number;
}

export const retryAfterDefaults = { maxMs: 3_600_000 } as const satisfies Required<RetryAfterOptions>;

export const RETRY_AFTER_BOUNDS = Object.freeze({ maxMs: MS } as const satisfies Record<
  keyof RetryAfterOptions,
  Bound
>);

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// RFC 9110 §5.6.7: IMF-fixdate, RFC 850 and asctime.
const IMF = /^[a-z]{3}, (\d{2}) ([a-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
const RFC850 = /^[a-z]{6,9}, (\d{2})-([a-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) gmt$/;
const ASCTIME = /^[a-z]{3} ([a-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** Delta-seconds or an HTTP-date; 0 for a past date. Not Date.parse: it accepts almost anything ("1 2"). */
export function parseRetryAfter(
  value: string | undefined,
  clock: Clock,
  options: RetryAfterOptions = {},
): number | undefined {
  const maxMs = checkNumber('maxMs', options.maxMs ?? retryAfterDefaults.maxMs, RETRY_AFTER_BOUNDS.maxMs);
  if (value === undefined) return undefined;
  const v = value.trim().toLowerCase();
  if (/^\d+$/.test(v)) return Math.min(maxMs, Number(v) * 1000);
  const at = parseHttpDate(v);
  if (at === undefined) return undefined;
  return Math.min(maxMs, Math.max(0, at - clock.now()));
}

function parseHttpDate(v: string): number | undefined {
  let m = IMF.exec(v);
  if (m) return utc(m[3], m[2], m[1], m[4], m[5], m[6]);
  m = RFC850.exec(v);
  if (m) {
    // RFC 9110: a two-digit year over 50 years ahead is in the past century.
    const yy = Number(m[3]);
    const year = yy < 70 ? 2000 + yy : 1900 + yy;
    return utc(String(year), m[2], m[1], m[4], m[5], m[6]);
  }
  m = ASCTIME.exec(v);
  if (m) return utc(m[6], m[1], m[2]?.trim(), m[3], m[4], m[5]);
  return undefined;
}

function utc(...parts: (string | undefined)[]): number | undefined {
  const [year, monthName, day, hh, mm, ss] = parts;
  const month = MONTHS.indexOf(monthName ?? '');
  const [y, d, h, mi, s] = [year, day, hh, mm, ss].map(Number) as [number, number, number, number, number];
  if (month < 0 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return undefined;
  const t = Date.UTC(y, month, d, h, mi, s);
  // Date.UTC rolls 31 Feb over into March; a real date round-trips.
  return new Date(t).getUTCDate() === d ? t : undefined;
}
