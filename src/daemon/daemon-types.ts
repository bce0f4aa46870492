import type { UnreachableHost } from '../adapters/robots/robots-cache.js';
import type { CrawldConfig } from '../config/config-schema.js';
import type { ReloadResult } from '../config/reload.js';
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { Scheduler } from '../engine/scheduler/scheduler.js';
import type { Logger } from '../observe/logger.js';
import type { Metrics } from '../observe/metrics.js';
import type { TrapCounts } from '../observe/trap-counts.js';
import type { ControlPlane } from '../ports/control-plane.js';
import type { EnqueueRequest, EnqueueResult, Frontier } from '../ports/frontier.js';
import type { StatusSource } from '../ports/status-source.js';

export interface DaemonOptions {
  readonly once: boolean;
  readonly logger?: Logger;
  readonly clock?: Clock;
}

/** What the CLI, the HTTP routes and the tests drive; observe reads it as a StatusSource. */
export interface Daemon extends StatusSource {
  readonly config: CrawldConfig;
  readonly events: CrawlEmitter;
  readonly logger: Logger;
  readonly frontier: Frontier;
  readonly scheduler: Scheduler;
  readonly instanceId: string;
  readonly startedAt: number;
  readonly metrics: Metrics;
  readonly control: ControlPlane;
  readonly httpUrl: string | undefined;
  /** RFC 9309 §2.3.1.4 */
  robotsUnreachable(): UnreachableHost[];
  renderChoices(): Iterable<readonly [string, string, 'http' | 'browser']>;
  readonly renderPaths: Readonly<Record<'http' | 'browser' | 'both', number>>;
  readonly traps: TrapCounts;
  run(): Promise<void>;
  /** Mounts the HTTP app (http-listener.ts says when); call after run(). */
  serveHttp(): Promise<void>;
  submit(requests: readonly EnqueueRequest[]): Promise<EnqueueResult>;
  ready(): boolean;
  /**
   * Storage, HTTP and fetch settings need a restart (`needsRestart`).
   * @throws ConfigError (the running config is kept) when the admin token file is unreadable.
   */
  reload(next: CrawldConfig): Promise<ReloadResult>;
  /** Drains in-flight until the drain timeout, hands the rest back, flushes, closes. */
  stop(): Promise<void>;
}
