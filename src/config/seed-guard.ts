import { checkAddress, parseHostLiteral } from '../core/address.js';
import type { CrawldConfig } from './config-schema.js';

/**
 * Seeds whose host is an IP literal in a refused range are a configuration mistake the
 * operator should hear about before anything starts (hostnames are checked after DNS
 * resolution by the fetcher). Returns one issue per refused seed.
 */
export function seedAddressIssues(config: CrawldConfig): string[] {
  const issues: string[] = [];
  const policy = {
    allowPrivateNetworks: config.fetch.allowPrivateNetworks,
    allow: config.fetch.allowAddresses,
  };
  config.jobs.forEach((job, i) => {
    job.seeds.forEach((seed, j) => {
      const u = new URL(seed);
      const ip = parseHostLiteral(u.hostname.replace(/^\[|\]$/g, ''));
      if (!ip) return;
      const port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
      const d = checkAddress(policy, ip, port);
      if (!d.allowed) {
        issues.push(
          `jobs[${i}].seeds[${j}]: ${seed} is a ${d.range ?? 'refused'} address; allow it with ` +
            '--allow-private-networks or fetch.allowPrivateNetworks / fetch.allowAddresses',
        );
      }
    });
  });
  return issues;
}
