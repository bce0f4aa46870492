import { z } from 'zod';
import { numberIn, positiveInt } from '../units.js';

/** http: the status page, /metrics and the admin API. */
export const httpSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    /** null: no HTTP server. */
    port: numberIn({ min: 0, max: 65535, integer: true }).nullable().default(null),
    /**
     * Bearer token for the mutating admin routes. Prefer `${CRAWLD_ADMIN_TOKEN}` or
     * adminTokenFile to a literal. Without a token the mutating routes answer 403.
     */
    adminToken: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    /** A file holding the bearer token (read at start and on reload). */
    adminTokenFile: z.string().min(1).optional(),
    /** Largest accepted request body on the admin API. */
    maxBodyBytes: positiveInt.default(1_048_576),
  })
  .prefault({});
