import { z } from 'zod';
import { COOKIE_LIMIT_BOUNDS, cookieLimitDefaults } from '../../core/cookie-limits.js';
import { numberIn } from '../units.js';
import { headerName, headerValue } from './common-schema.js';

const cookieName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'must be a cookie name' });

/**
 * jobs[].request: how a job's requests are made. Header and cookie values are secrets as far
 * as crawld is concerned: write them as `${ENV_VAR}` or `${file:/run/secrets/token}`; they are
 * never logged, exported as metrics or written to results, and are dropped on a redirect to
 * another origin.
 */
export const requestSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  headers: z.record(headerName, headerValue).default({}),
  /** A string is sent as is; an object or array as JSON (content-type defaults to application/json). */
  body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  cookies: z.record(cookieName, headerValue).default({}),
});

/**
 * jobs[].cookies: the job's cookie jar (RFC 6265, docs/config.md "Cookies"): what servers set
 * is sent back by the jar's rules, kept beside the frontier across restarts and shared by the
 * daemons of a Redis crawl. `request.cookies` seed it. `false` (or `jar: false`): no jar, only
 * the request's own Cookie header and `request.cookies`, as before jars existed.
 */
export const cookiesSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { jar: v } : v),
  z.strictObject({
    jar: z.boolean().default(true),
    maxPerDomain: numberIn(COOKIE_LIMIT_BOUNDS.maxPerDomain).default(cookieLimitDefaults.maxPerDomain),
    maxTotal: numberIn(COOKIE_LIMIT_BOUNDS.maxTotal).default(cookieLimitDefaults.maxTotal),
  }),
);
