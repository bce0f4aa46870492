import { z } from 'zod';
import { frontierIssues } from '../cross-checks.js';
import { positiveInt, positiveMs } from '../units.js';

/** frontier: where the crawl's tasks are kept (docs/redis.md for the shared kinds). */
export const frontierSchema = z
  .strictObject({
    /** redis, redis-cluster: shared by several daemons (docs/redis.md); sqlite and memory: this daemon only. */
    kind: z.enum(['sqlite', 'memory', 'redis', 'redis-cluster']).default('sqlite'),
    /** sqlite only. @default DATA_DIR/frontier.db */
    path: z.string().min(1).optional(),
    /** redis only: redis://[:password@]HOST:PORT/DB (rediss:// for TLS). */
    url: z.string().min(1).optional(),
    /** redis-cluster only: start-up nodes, "HOST:PORT" each (any reachable one finds the rest). */
    nodes: z.array(z.string()).min(1).optional(),
    /** redis only: namespace of every key, so several crawls can share one Redis. @default 'crawld' */
    keyPrefix: z
      .string()
      .regex(/^[^{}\s]{1,64}$/, { message: 'must be 1-64 characters without braces or spaces' })
      .optional(),
    maxPending: positiveInt.default(5_000_000),
    /**
     * Visibility timeout: a dead daemon's leased tasks return to the queue at most this long
     * after its death (a running task's lease is extended by its holder while it runs).
     */
    leaseMs: positiveMs.default(120_000),
  })
  .prefault({})
  .superRefine(frontierIssues);
