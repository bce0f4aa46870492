import { hostname } from 'node:os';
import type { CrawldConfig } from '../config/config-schema.js';

/** This daemon's identity for leases, logs and metrics: configured, or hostname-pid. */
export function instanceIdOf(config: CrawldConfig): string {
  return config.instanceId ?? `${hostname()}-${process.pid}`;
}
