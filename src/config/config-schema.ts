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
 * The config file's schema: every option, its type and its default, one section per file in
 * schema/ (bounds and defaults of the algorithms' options from their tables in src/core), the
 * rules between options in cross-checks.ts and checks.ts. Objects are strict: an unknown key is
 * refused (a typo such as `maxDepht` must not be silently ignored in a crawler that runs for
 * months). Durations are milliseconds.
 */
const configBase = z.strictObject({
  /** Where the SQLite frontier, results and lock live. */
  dataDir: z.string().min(1).default('./data'),
  /** Identity of this daemon for leases, logs and metrics. @default hostname-pid */
  instanceId: z.string().min(1).optional(),
  log: z.strictObject({ level: z.enum(['error', 'warn', 'info', 'debug']).default('info') }).prefault({}),
  /** false: crawl events update no metric (/metrics still answers, with the process metrics); for benchmarks. */
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
  /** Where change records go (jobs with detectChanges). @default DATA_DIR/changes.jsonl */
  changeSinks: z.array(changeSinkSchema).default([{ kind: 'jsonl' }]),
  jobs: z.array(jobSchema).default([]),
});

export const configSchema = configBase.superRefine(redisIssues).superRefine(controlIssues);

export type CrawldConfig = z.output<typeof configSchema>;
export type JobConfig = CrawldConfig['jobs'][number];
export type ConfigInput = z.input<typeof configSchema>;
