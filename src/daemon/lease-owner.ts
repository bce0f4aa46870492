import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { CrawldConfig } from '../config/config-schema.js';

/**
 * Whose leases this daemon takes: the configured instanceId, or an id kept in the data dir.
 * It outlives the process, so a daemon restarted on its data dir finds the leases its dead
 * run held on a shared frontier and reconciles them with its sinks (the data-dir lock keeps
 * two live daemons from sharing it).
 */
export function leaseOwnerOf(config: CrawldConfig, dataDir: string): string {
  if (config.instanceId !== undefined) return config.instanceId;
  const file = join(dataDir, 'lease-owner');
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    if (kept !== '') return kept;
  }
  const id = `${hostname()}-${randomBytes(4).toString('hex')}`;
  writeFileSync(file, `${id}\n`);
  return id;
}
