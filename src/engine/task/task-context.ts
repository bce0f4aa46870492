/**
 * What every step of running one task shares: the runner's dependencies, the result it reports
 * to the scheduler, and the URL it puts on the wire. A module of its own so the outcome
 * handlers (task-endings.ts, page-success.ts, ...) and the runner import it without a cycle.
 */
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
  /** The sinks of one job (sinks with a `jobs` filter); default all of `sinks`. */
  readonly sinksFor?: (jobId: string) => readonly Sink[];
  /** Records a crashed run left in some sinks only: not written to those again. */
  readonly partial?: PartialRecords;
  readonly jobs: ReadonlyMap<string, JobRuntime>;
  readonly retry: RetryPolicy;
  readonly clock: Clock;
  readonly events: CrawlEmitter;
  /** Previous fields per page, for change detection. */
  readonly pageState?: PageStateStore;
  readonly changeSinks?: readonly ChangeSink[];
  /** robots.txt checks (adapters/robots/robots-cache.ts); undefined turns them off for every job. */
  readonly robots?: RobotsChecker;
  /** Event-loop lag now, in ms, for the limiter's lag discount. */
  readonly lagMs: () => number;
  /** Milliseconds until the host's open breaker lets a probe through (0: not open). */
  readonly breakerRetryInMs?: (host: string) => number;
}

/** What happened to one task, for the scheduler's counters. */
export type TaskResult = 'ok' | 'retry' | 'dead' | 'skipped' | 'deferred' | 'lost' | 'probe';

/**
 * The URL a task requests: as it was discovered (Task.requestUrl), or its key when the two are
 * the same. Robots rules, logs and records see it; page state and dedupe use the key.
 */
export function wireUrl(task: Task): string {
  return task.requestUrl ?? task.url;
}

/** The fields every record of a task starts with: which URL, under which key, which task run. */
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
