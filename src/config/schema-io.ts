import { z } from 'zod';
import { COOKIE_LIMIT_BOUNDS, cookieLimitDefaults } from '../core/cookie-limits.js';
import { ms, numberIn, positiveInt, positiveMs } from './units.js';

/**
 * Config schema parts for JSON API jobs and the PostgreSQL and webhook sinks (schema.ts
 * composes them). Strict like the rest: an unknown key is refused.
 */

const jsonPath = z.string().min(1);

const jsonFieldRule = z.union([
  jsonPath,
  z.strictObject({
    path: jsonPath,
    type: z.enum(['raw', 'string', 'number']).default('raw'),
    required: z.boolean().default(false),
  }),
]);

const jsonFollowRule = z
  .strictObject({
    /** Values at this path are URLs (a `next` link). */
    path: jsonPath.optional(),
    /** URL template with `{path}` placeholders filled from the body (a cursor). */
    url: z.string().min(1).optional(),
    priority: z.number().int().default(10),
    maxDepth: z.number().int().nonnegative().optional(),
  })
  .refine((r) => (r.path === undefined) !== (r.url === undefined), {
    message: 'give exactly one of path or url',
  });

/** `extract: { type: json, ... }`: see src/adapters/parse/json-extractor.ts for the path syntax. */
export const jsonExtractSchema = z.strictObject({
  type: z.literal('json'),
  fields: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), jsonFieldRule).optional(),
  /** Path of an array: one record (table row) per element. */
  items: jsonPath.optional(),
  follow: z.array(jsonFollowRule).default([]),
});

const headerName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'must be a header name' });
const headerValue = z.string().refine((v) => !/[\r\n\0]/.test(v), { message: 'must be one line' });
const cookieName = z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: 'must be a cookie name' });

/**
 * How a job's requests are made. Header and cookie values are secrets as far as crawld is
 * concerned: write them as `${ENV_VAR}` or `${file:/run/secrets/token}`; they are never
 * logged, exported as metrics or written to results, and are dropped on a redirect to
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
 * The job's cookie jar (RFC 6265, docs/config.md "Cookies"): what servers set is sent back by
 * the jar's rules, kept beside the frontier across restarts and shared by the daemons of a
 * Redis crawl. `request.cookies` seed it. `false` (or `jar: false`): no jar, only the
 * request's own Cookie header and `request.cookies`, as before jars existed.
 */
export const cookiesSchema = z.preprocess(
  (v) => (typeof v === 'boolean' ? { jar: v } : v),
  z.strictObject({
    jar: z.boolean().default(true),
    maxPerDomain: numberIn(COOKIE_LIMIT_BOUNDS.maxPerDomain).default(cookieLimitDefaults.maxPerDomain),
    maxTotal: numberIn(COOKIE_LIMIT_BOUNDS.maxTotal).default(cookieLimitDefaults.maxTotal),
  }),
);

const tableName = z.string().regex(/^([a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/, {
  message: 'must be a lower-case SQL identifier, optionally schema-qualified',
});

export function isPostgresUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'postgres:' || u.protocol === 'postgresql:') && u.hostname !== '';
  } catch {
    return false;
  }
}

export const postgresSinkSchema = z.strictObject({
  kind: z.literal('postgres'),
  /** postgres://USER[:PASSWORD]@HOST:PORT/DB; prefer `${PG_URL}` so a password stays out of the file. */
  url: z.string().refine(isPostgresUrl, { message: 'must be a postgres://USER@HOST:PORT/DB URL' }),
  table: tableName.default('crawld_results'),
  /** Rows per INSERT; a batch is written when it is full or flushIntervalMs after its first record. */
  batchSize: positiveInt.default(500),
  flushIntervalMs: positiveMs.default(200),
  /** Records buffered at most; write() waits for room beyond this, slowing the crawl. */
  maxBuffer: positiveInt.default(5_000),
  /** On a conflicting (url, record_key, item): keep the stored row or overwrite it. */
  onConflict: z.enum(['nothing', 'update']).default('nothing'),
  /** Backoff between retries of a failed batch (transient errors are retried until close). */
  retryBaseMs: positiveMs.default(200),
  retryMaxMs: positiveMs.default(10_000),
  /** Only these jobs' records. @default every job */
  jobs: z.array(z.string()).min(1).optional(),
});

export const webhookChangeSinkSchema = z.strictObject({
  kind: z.literal('webhook'),
  url: z.string().refine(
    (s) => {
      try {
        const u = new URL(s);
        return u.protocol === 'http:' || u.protocol === 'https:';
      } catch {
        return false;
      }
    },
    { message: 'must be an absolute http(s) URL' },
  ),
  /** Sent with every POST (e.g. a signature secret as `${WEBHOOK_TOKEN}`); never logged. */
  headers: z.record(headerName, headerValue).default({}),
  maxAttempts: positiveInt.default(5),
  backoffBaseMs: ms.default(500),
  backoffMaxMs: ms.default(30_000),
  timeoutMs: positiveMs.default(10_000),
  /** POSTs in flight at once; more changes queue in crawld. */
  maxConcurrent: positiveInt.default(8),
  /** Least time between the starts of two POSTs. */
  minTimeMs: ms.default(0),
});

export const changeSinkSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('jsonl'), path: z.string().min(1).optional() }),
  webhookChangeSinkSchema,
]);
