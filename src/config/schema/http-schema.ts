import { z } from 'zod';
import { numberIn, positiveInt } from '../units.js';

/** http: the status page, /metrics and the admin API. */
export const httpSchema = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1'),
    port: numberIn({ min: 0, max: 65535, integer: true }).nullable().default(null),
    /** Without a token the mutating admin routes answer 403. */
    adminToken: z.string().min(16, { message: 'must be at least 16 characters' }).optional(),
    adminTokenFile: z.string().min(1).optional(),
    maxBodyBytes: positiveInt.default(1_048_576),
  })
  .prefault({});
