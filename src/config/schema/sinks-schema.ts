import { z } from 'zod';
import { WARC_BOUNDS, WARC_DEFAULTS } from '../../core/warc-options.js';
import { isPostgresUrl } from '../predicates.js';
import { ms, numberIn, positiveInt, positiveMs } from '../units.js';
import { headerName, headerValue, httpUrl } from './common-schema.js';

/** sinks (where records go) and changeSinks (where change records go). */

const tableName = z.string().regex(/^([a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/, {
  message: 'must be a lower-case SQL identifier, optionally schema-qualified',
});

/** @default every job */
const jobs = z.array(z.string()).min(1).optional();

const postgresSinkSchema = z.strictObject({
  kind: z.literal('postgres'),
  /** Prefer `${PG_URL}` so a password stays out of the file. */
  url: z.string().refine(isPostgresUrl, { message: 'must be a postgres://USER@HOST:PORT/DB URL' }),
  table: tableName.default('crawld_results'),
  batchSize: positiveInt.default(500),
  flushIntervalMs: positiveMs.default(200),
  /** write() waits for room beyond this, slowing the crawl. */
  maxBuffer: positiveInt.default(5_000),
  onConflict: z.enum(['nothing', 'update']).default('nothing'),
  retryBaseMs: positiveMs.default(200),
  retryMaxMs: positiveMs.default(10_000),
  jobs,
});

/** WARC/1.1 archives of every exchange (docs/archives.md). */
const warcSinkSchema = z.strictObject({
  kind: z.literal('warc'),
  /** @default DATA_DIR/warc */
  dir: z.string().min(1).optional(),
  prefix: z
    .string()
    .regex(/^[A-Za-z0-9_]([A-Za-z0-9._-]{0,63})$/, { message: 'must be 1-64 letters, digits, ., _ or -' })
    .default('crawld'),
  maxFileBytes: numberIn(WARC_BOUNDS.maxFileBytes).default(WARC_DEFAULTS.maxFileBytes),
  /** A 304 and an unchanged payload are revisit records; false: full response records. */
  revisits: z.boolean().default(true),
  revisitMemory: numberIn(WARC_BOUNDS.revisitMemory).default(WARC_DEFAULTS.revisitMemory),
  redactSecrets: z.boolean().default(true),
  gzipLevel: numberIn(WARC_BOUNDS.gzipLevel).default(WARC_DEFAULTS.gzipLevel),
  jobs,
});

export const sinkSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('jsonl'), path: z.string().min(1).optional(), jobs }),
  postgresSinkSchema,
  warcSinkSchema,
]);

const webhookChangeSinkSchema = z.strictObject({
  kind: z.literal('webhook'),
  url: httpUrl,
  /** Never logged; write a secret as `${WEBHOOK_TOKEN}`. */
  headers: z.record(headerName, headerValue).default({}),
  maxAttempts: positiveInt.default(5),
  backoffBaseMs: ms.default(500),
  backoffMaxMs: ms.default(30_000),
  timeoutMs: positiveMs.default(10_000),
  maxConcurrent: positiveInt.default(8),
  minTimeMs: ms.default(0),
});

export const changeSinkSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('jsonl'), path: z.string().min(1).optional() }),
  webhookChangeSinkSchema,
]);
