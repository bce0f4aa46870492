import { seedScopeHosts } from '../core/seed-scope.js';
import type { JobConfig } from './config-schema.js';

/**
 * The scope's host patterns as the config gives them (`scope.hosts`, `sameSite`, or the seeds'
 * hosts and twins); hosts the seeds redirect to join at run time (docs/politeness.md).
 */
export function scopeHostsOf(job: Pick<JobConfig, 'seeds' | 'scope'>): string[] {
  const seedHosts = [...new Set(job.seeds.map((s) => new URL(s).host))];
  const explicit = job.scope.hosts;
  return explicit
    ? [...explicit, ...(job.scope.sameSite ? seedScopeHosts(seedHosts, true) : [])]
    : seedScopeHosts(seedHosts, job.scope.sameSite);
}
