import { z } from 'zod';
import { COOKIE_LIMIT_BOUNDS, cookieLimitDefaults } from '../../core/cookie-limits.js';
import { numberIn } from '../units.js';
import { headerName, headerValue } from './common-schema.js';

const cookieName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'must be a cookie name' });

/**
 * jobs[].request. Header and cookie values are secrets: never logged, exported or written to
 * results, and dropped on a redirect to another origin.
 */
export const requestSchema = z.strictObject({
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).default('GET'),
  headers: z.record(headerName, headerValue).default({}),
  body: z.union([z.string(), z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
  cookies: z.record(cookieName, headerValue).default({}),
});

/** jobs[].cookies: the job's jar (RFC 6265), kept beside the frontier; `false`: no jar. */
export const cookiesSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { jar: v } : v),
  z.strictObject({
    jar: z.boolean().default(true),
    maxPerDomain: numberIn(COOKIE_LIMIT_BOUNDS.maxPerDomain).default(cookieLimitDefaults.maxPerDomain),
    maxTotal: numberIn(COOKIE_LIMIT_BOUNDS.maxTotal).default(cookieLimitDefaults.maxTotal),
  }),
);
