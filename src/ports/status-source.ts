import type { TimeoutPhase } from '../core/timeout-phase.js';
import type { ControlPlane } from './control-plane.js';
import type { FrontierStats } from './frontier.js';

/** Cumulative task outcomes since start-up. */
export interface CrawlCounters {
  readonly ok: number;
  readonly retry: number;
  readonly dead: number;
  readonly skipped: number;
  readonly deferred: number;
}

/** A host whose robots.txt cannot be fetched (RFC 9309 §2.3.1.4). */
export interface UnreachableRobots {
  readonly origin: string;
  readonly since: number;
  readonly retryAt: number;
  readonly outcome: string;
  /** An earlier copy keeps applying (RFC 9309 §2.4); false: nothing on the host is fetched. */
  readonly usingCachedCopy: boolean;
}

/**
 * What the status page, the stats JSON and the progress line read from a running crawl:
 * the observe layer depends on this port, not on the daemon. The daemon satisfies it as is.
 */
export interface StatusSource {
  readonly instanceId: string;
  /** Epoch ms. */
  readonly startedAt: number;
  ready(): boolean;
  readonly frontier: { stats(): Promise<FrontierStats> };
  readonly scheduler: {
    readonly state: string;
    readonly counters: CrawlCounters;
    readonly inflightCount: number;
    readonly bufferedCount: number;
  };
  readonly control: Pick<ControlPlane, 'inflight' | 'globalLimit' | 'hostSnapshots'>;
  robotsUnreachable(): readonly UnreachableRobots[];
  /** Each decided host of `render: { kind: auto }` jobs: [job, host, decision]. */
  renderChoices?(): Iterable<readonly [string, string, 'http' | 'browser']>;
  /** URLs the trap rules kept out (docs/traps.md): the hosts with the most, most first. */
  readonly traps?: {
    readonly sum: number;
    top(max: number): { host: string; total: number; reasons: Readonly<Record<string, number>> }[];
  };
  /** The host's learned timeouts in force, in ms, by phase (a phase not learned yet is absent). */
  hostTimeouts?(host: string): Partial<Record<TimeoutPhase, number>>;
}
