import { seedScopeHosts } from '../core/seed-scope.js';
import type { JobConfig } from './config-schema.js';

/**
 * The host patterns of a job's scope as the config gives them: `scope.hosts` (plus the seeds'
 * registrable domains with `sameSite`), or by default the seeds' hosts and their www./apex
 * twins (or their sites). Hosts the seeds redirect to join at run time (docs/politeness.md).
 */
export function scopeHostsOf(job: Pick<JobConfig, 'seeds' | 'scope'>): string[] {
  const seedHosts = [...new Set(job.seeds.map((s) => new URL(s).host))];
  const explicit = job.scope.hosts;
  return explicit
    ? [...explicit, ...(job.scope.sameSite ? seedScopeHosts(seedHosts, true) : [])]
    : seedScopeHosts(seedHosts, job.scope.sameSite);
}
