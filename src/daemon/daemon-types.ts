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

/** A started daemon: what the CLI, the HTTP routes and the tests drive; observe reads it as a StatusSource. */
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
  /** Where the HTTP server listens (http.port set), bound at start-up. */
  readonly httpUrl: string | undefined;
  /** Hosts whose robots.txt is unreachable (RFC 9309 §2.3.1.4), for the status page. */
  robotsUnreachable(): UnreachableHost[];
  /** Each decided host of `render: { kind: auto }` jobs: [job, host, decision]. */
  renderChoices(): Iterable<readonly [string, string, 'http' | 'browser']>;
  /** Pages of `render: { kind: auto }` jobs by how they were fetched, since start. */
  readonly renderPaths: Readonly<Record<'http' | 'browser' | 'both', number>>;
  /** URLs the trap rules kept from the crawl since start, in total and per host (docs/traps.md). */
  readonly traps: TrapCounts;
  /** Resolves when the crawl loop ends (once-mode end or stop()). */
  run(): Promise<void>;
  /**
   * Mounts the HTTP app on the bound port once the crawl's first request is on the wire
   * (http-listener.ts says why); resolves at once without an HTTP server. Call after run().
   */
  serveHttp(): Promise<void>;
  submit(requests: readonly EnqueueRequest[]): Promise<EnqueueResult>;
  ready(): boolean;
  /**
   * Applies a new, already validated config: rate limits, breaker thresholds, concurrency
   * bounds, retries, log level, jobs, schedules and the admin token. Storage, HTTP and fetch
   * settings need a restart and are reported in `needsRestart`.
   * @throws ConfigError (the running config is kept) when the admin token file is unreadable.
   */
  reload(next: CrawldConfig): Promise<ReloadResult>;
  /** Graceful: drain in-flight until the drain timeout, hand the rest back, flush, close. */
  stop(): Promise<void>;
}
