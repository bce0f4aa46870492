/** What robots.txt says about a URL (RFC 9309), as the task runner asks it. */

/**
 * How one robots.txt fetch ended (the `outcome` label of crawld_robots_fetches_total).
 * parsed: 2xx. unavailable: 4xx other than 429, or more than 5 redirects: everything allowed.
 * blocked_address: the SSRF guard refused the host; the page's own fetch is refused and
 * dead-lettered for that, so robots does not hold it. The rest make the host unreachable
 * (RFC 9309 §2.3.1.4): nothing on it is fetched.
 */
export const ROBOTS_OUTCOMES = [
  'parsed',
  'unavailable',
  'too_many_redirects',
  'rate_limited',
  'server_error',
  'network_error',
  'timeout',
  'blocked_address',
] as const;
export type RobotsOutcome = (typeof ROBOTS_OUTCOMES)[number];

/** What the cache says about one URL. */
export type RobotsVerdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'disallow' }
  /** robots.txt unreachable and no earlier copy: wait until `retryAt` (epoch ms), fetch nothing. */
  | { readonly kind: 'unreachable'; readonly retryAt: number; readonly outcome: RobotsOutcome };

export interface RobotsChecker {
  /** The verdict for `url` under the product token of `userAgent` (or the checker's own). */
  check(url: string, signal?: AbortSignal, userAgent?: string): Promise<RobotsVerdict>;
}
