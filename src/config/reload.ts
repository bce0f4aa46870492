import { isDeepStrictEqual } from 'node:util';
import type { CrawldConfig } from './config.js';

export interface ReloadResult {
  readonly applied: string[];
  /** Changed, but only in effect after a restart. */
  readonly needsRestart: string[];
}

const LIVE = new Set([
  'log',
  'concurrency',
  'rateLimits',
  'breaker',
  'hostBackoff',
  'politeness',
  'retry',
  'jobs',
  'shutdown',
]);

/** Which sections of the config changed, split into those a reload applies and the rest. */
export function diffReload(before: CrawldConfig, after: CrawldConfig): ReloadResult {
  const applied: string[] = [];
  const needsRestart: string[] = [];
  for (const key of Object.keys(after) as (keyof CrawldConfig)[]) {
    if (isDeepStrictEqual(before[key], after[key])) continue;
    if (key === 'http' && isDeepStrictEqual(withoutToken(before.http), withoutToken(after.http))) {
      // The admin token is re-read on reload (a rotated token file or a new literal).
      applied.push('http.adminToken');
      continue;
    }
    (LIVE.has(key) ? applied : needsRestart).push(key);
  }
  return { applied, needsRestart };
}

function withoutToken(
  http: CrawldConfig['http'],
): Omit<CrawldConfig['http'], 'adminToken' | 'adminTokenFile'> {
  const { adminToken: _t, adminTokenFile: _f, ...rest } = http;
  return rest;
}
