import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';

/** RFC 6265 §6.1 minimums; a crawl over many hosts keeps maxTotal, least recently used going first. */
export interface CookieLimits {
  readonly maxPerDomain: number;
  readonly maxTotal: number;
}

export const cookieLimitDefaults: CookieLimits = Object.freeze({ maxPerDomain: 50, maxTotal: 3000 });

export const COOKIE_LIMIT_BOUNDS = Object.freeze({
  maxPerDomain: POSITIVE_INT,
  maxTotal: POSITIVE_INT,
} as const satisfies Record<keyof CookieLimits, Bound>);

export function checkCookieLimits(limits: CookieLimits): CookieLimits {
  checkNumber('maxPerDomain', limits.maxPerDomain, COOKIE_LIMIT_BOUNDS.maxPerDomain);
  checkNumber('maxTotal', limits.maxTotal, COOKIE_LIMIT_BOUNDS.maxTotal);
  return limits;
}
