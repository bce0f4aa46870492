import type { NormaliseOptions } from '../core/rules.js';
import type { JobConfig } from './config.js';
import { trapOptionsOf } from './schema/traps-schema.js';

/** A job's dedupe-key options, for seeds, submitted URLs, sitemaps and links alike. */
export function keyOptionsOf(job: Pick<JobConfig, 'normalise' | 'traps'>): NormaliseOptions {
  return { ...job.normalise, stripSessionIds: trapOptionsOf(job.traps).sessionIds };
}
