import { checkAddress, parseHostLiteral } from '../core/address.js';
import type { CrawldConfig } from './config-schema.js';

/** A seed whose host is a refused IP literal is a mistake to report before start (hostnames: after DNS). */
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
