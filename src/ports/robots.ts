/** `outcome` of crawld_robots_fetches_total; failures make the host unreachable (RFC 9309 §2.3.1.4). */
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

export type RobotsVerdict =
  | { readonly kind: 'allow' }
  | { readonly kind: 'disallow' }
  | { readonly kind: 'unreachable'; readonly retryAt: number; readonly outcome: RobotsOutcome };

export interface RobotsChecker {
  check(url: string, signal?: AbortSignal, userAgent?: string): Promise<RobotsVerdict>;
}
