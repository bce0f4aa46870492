import type { NormaliseOptions } from '../core/rules.js';
import type { JobConfig } from './config.js';
import { trapOptionsOf } from './schema/traps-schema.js';

/**
 * A job's dedupe-key options: its `normalise` section, and whether session ids leave the key
 * (`traps.sessionIds`). Seeds, submitted URLs, sitemaps and links all take their keys from it.
 */
export function keyOptionsOf(job: Pick<JobConfig, 'normalise' | 'traps'>): NormaliseOptions {
  return { ...job.normalise, stripSessionIds: trapOptionsOf(job.traps).sessionIds };
}
