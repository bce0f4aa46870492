import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';

/**
 * How many cookies a job's jar keeps (jobs[].cookies): RFC 6265 §6.1's minimums for a user
 * agent, which every browser exceeds a little (Chrome: 180 per domain, 3,300 in all). A crawl
 * over 100,000 hosts keeps maxTotal cookies, the least recently used going first.
 */
export interface CookieLimits {
  /** Cookies sharing one domain. */
  readonly maxPerDomain: number;
  /** Cookies in the jar. */
  readonly maxTotal: number;
}

export const cookieLimitDefaults: CookieLimits = Object.freeze({ maxPerDomain: 50, maxTotal: 3000 });

/** The bounds of each limit (the config's jobs[].cookies is built from them). */
export const COOKIE_LIMIT_BOUNDS = Object.freeze({
  maxPerDomain: POSITIVE_INT,
  maxTotal: POSITIVE_INT,
} as const satisfies Record<keyof CookieLimits, Bound>);

/** The limits, checked against their bounds. */
export function checkCookieLimits(limits: CookieLimits): CookieLimits {
  checkNumber('maxPerDomain', limits.maxPerDomain, COOKIE_LIMIT_BOUNDS.maxPerDomain);
  checkNumber('maxTotal', limits.maxTotal, COOKIE_LIMIT_BOUNDS.maxTotal);
  return limits;
}
