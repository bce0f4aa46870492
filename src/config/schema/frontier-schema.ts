import { z } from 'zod';
import { frontierIssues } from '../cross-checks.js';
import { positiveInt, positiveMs } from '../units.js';

/** frontier: where the crawl's tasks are kept (docs/redis.md for the shared kinds). */
export const frontierSchema = z
  .strictObject({
    kind: z.enum(['sqlite', 'memory', 'redis', 'redis-cluster']).default('sqlite'),
    /** @default DATA_DIR/frontier.db */
    path: z.string().min(1).optional(),
    url: z.string().min(1).optional(),
    nodes: z.array(z.string()).min(1).optional(),
    /** @default 'crawld' */
    keyPrefix: z
      .string()
      .regex(/^[^{}\s]{1,64}$/, { message: 'must be 1-64 characters without braces or spaces' })
      .optional(),
    maxPending: positiveInt.default(5_000_000),
    /** A running task's lease is extended by its holder; a dead daemon's return after this. */
    leaseMs: positiveMs.default(120_000),
  })
  .prefault({})
  .superRefine(frontierIssues);
