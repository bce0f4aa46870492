import { z } from 'zod';
import { controlIssues } from './checks.js';
import { redisIssues } from './cross-checks.js';
import {
  breakerSchema,
  concurrencySchema,
  hostBackoffSchema,
  politenessSchema,
  rateLimitsSchema,
  retrySchema,
} from './schema/control-schema.js';
import { fetchSchema } from './schema/fetch-schema.js';
import { frontierSchema } from './schema/frontier-schema.js';
import { httpSchema } from './schema/http-schema.js';
import { jobSchema } from './schema/jobs-schema.js';
import { changeSinkSchema, sinkSchema } from './schema/sinks-schema.js';
import { ms } from './units.js';

/**
 * The config file's schema, one section per file in schema/. Objects are strict: a typo such
 * as `maxDepht` must not be silently ignored in a crawler that runs for months.
 */
const configBase = z.strictObject({
  dataDir: z.string().min(1).default('./data'),
  /** @default hostname-pid */
  instanceId: z.string().min(1).optional(),
  log: z.strictObject({ level: z.enum(['error', 'warn', 'info', 'debug']).default('info') }).prefault({}),
  /** false: crawl events update no metric; for benchmarks. */
  metrics: z.strictObject({ enabled: z.boolean().default(true) }).prefault({}),
  http: httpSchema,
  frontier: frontierSchema,
  fetch: fetchSchema,
  concurrency: concurrencySchema,
  rateLimits: rateLimitsSchema,
  breaker: breakerSchema,
  hostBackoff: hostBackoffSchema,
  politeness: politenessSchema,
  retry: retrySchema,
  shutdown: z.strictObject({ drainTimeoutMs: ms.default(10_000) }).prefault({}),
  sinks: z.array(sinkSchema).default([{ kind: 'jsonl' }]),
  /** @default DATA_DIR/changes.jsonl */
  changeSinks: z.array(changeSinkSchema).default([{ kind: 'jsonl' }]),
  jobs: z.array(jobSchema).default([]),
});

export const configSchema = configBase.superRefine(redisIssues).superRefine(controlIssues);

export type CrawldConfig = z.output<typeof configSchema>;
export type JobConfig = CrawldConfig['jobs'][number];
export type ConfigInput = z.input<typeof configSchema>;
