/** The composition's shared state: what createDaemon, the engine's builders and the handle all read. */
import { hostname } from 'node:os';
import type { CrawldConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { RetryPolicy } from '../engine/task/retry-policy.js';
import type { Logger } from '../observe/logger.js';
import type { createControlPlane } from './control-factory.js';
import type { ReleaseStack } from './release-stack.js';

export type BuiltControl = ReturnType<typeof createControlPlane>;

/** What a reload replaces: the running config and what was built from it. */
export interface Live {
  config: CrawldConfig;
  built: BuiltControl;
  retryPolicy: RetryPolicy;
  adminToken: string | undefined;
  /** stop() began: releases are a shutdown's, not a failed start's. */
  stopping: boolean;
}

/** What every part of the composition shares. */
export interface Root {
  readonly clock: Clock;
  readonly logger: Logger;
  readonly events: CrawlEmitter;
  readonly instanceId: string;
  readonly dataDir: string;
  readonly once: boolean;
  readonly stack: ReleaseStack;
  readonly live: Live;
}

/** This daemon's identity for leases, logs and metrics: configured, or hostname-pid. */
export function instanceIdOf(config: CrawldConfig): string {
  return config.instanceId ?? `${hostname()}-${process.pid}`;
}
