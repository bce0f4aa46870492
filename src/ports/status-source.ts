import type { TimeoutPhase } from '../core/timeout-phase.js';
import type { ControlPlane } from './control-plane.js';
import type { FrontierStats } from './frontier.js';

export interface CrawlCounters {
  readonly ok: number;
  readonly retry: number;
  readonly dead: number;
  readonly skipped: number;
  readonly deferred: number;
}

/** RFC 9309 §2.3.1.4. */
export interface UnreachableRobots {
  readonly origin: string;
  readonly since: number;
  readonly retryAt: number;
  readonly outcome: string;
  /** RFC 9309 §2.4. */
  readonly usingCachedCopy: boolean;
}

/** What observe/ reads from a running crawl, so it depends on this port, not on the daemon. */
export interface StatusSource {
  readonly instanceId: string;
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
  renderChoices?(): Iterable<readonly [string, string, 'http' | 'browser']>;
  readonly traps?: {
    readonly sum: number;
    top(max: number): { host: string; total: number; reasons: Readonly<Record<string, number>> }[];
  };
  hostTimeouts?(host: string): Partial<Record<TimeoutPhase, number>>;
}
