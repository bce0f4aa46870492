/** What every step of one task shares: a module of its own so the outcome handlers import it without a cycle. */
import type { Clock } from '../../core/clock.js';
import type { CrawlEmitter } from '../../core/events.js';
import type { Fetcher, FetchResponse } from '../../ports/fetcher.js';
import type { Frontier, Task } from '../../ports/frontier.js';
import type { ChangeSink, PageStateStore } from '../../ports/page-state.js';
import type { RobotsChecker } from '../../ports/robots.js';
import type { Sink } from '../../ports/sink.js';
import type { JobRuntime } from '../job/job-runtime.js';
import type { PartialRecords } from '../recovery/partial-records.js';
import type { RetryPolicy } from './retry-policy.js';

export interface TaskRunnerDeps {
  readonly frontier: Frontier;
  readonly fetcher: Fetcher;
  readonly sinks: readonly Sink[];
  /** @default all of `sinks` */
  readonly sinksFor?: (jobId: string) => readonly Sink[];
  readonly partial?: PartialRecords;
  readonly jobs: ReadonlyMap<string, JobRuntime>;
  readonly retry: RetryPolicy;
  readonly clock: Clock;
  readonly events: CrawlEmitter;
  readonly pageState?: PageStateStore;
  readonly changeSinks?: readonly ChangeSink[];
  /** Undefined turns robots.txt off for every job. */
  readonly robots?: RobotsChecker;
  readonly lagMs: () => number;
  /** 0: the breaker is not open. */
  readonly breakerRetryInMs?: (host: string) => number;
}

export type TaskResult = 'ok' | 'retry' | 'dead' | 'skipped' | 'deferred' | 'lost' | 'probe';

/** The URL as discovered, which robots, logs and records see; page state and dedupe use the key. */
export function wireUrl(task: Task): string {
  return task.requestUrl ?? task.url;
}

export function recordHead(task: Task, res: FetchResponse) {
  return {
    url: wireUrl(task),
    key: task.url,
    finalUrl: res.url,
    jobId: task.jobId,
    taskId: task.id,
    generation: task.generation,
  };
}
