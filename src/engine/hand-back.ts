/**
 * Gives leased tasks back to the frontier unstarted (pause, stop, a deferred host, an expiring
 * lease), uncharged and due after delayMs; counted and reported as deferred.
 */
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { Frontier, Task } from '../ports/frontier.js';
import type { SchedulerCounters } from './scheduler-options.js';

export interface HandBackDeps {
  readonly frontier: Frontier;
  readonly clock: Clock;
  readonly events: CrawlEmitter;
  readonly counters: SchedulerCounters;
}

export async function handBack(
  deps: HandBackDeps,
  tasks: readonly Task[],
  reason: string,
  delayMs: number,
): Promise<void> {
  const at = deps.clock.now() + delayMs;
  for (const t of tasks) {
    try {
      await deps.frontier.retry(t, { at, reason, chargeAttempt: false });
    } catch (err) {
      // Unreachable store: the lease expires and the task comes back by itself.
      deps.events.emit('internalError', { where: 'handBack', error: err });
      continue;
    }
    deps.counters.deferred++;
    deps.events.emit('deferred', { jobId: t.jobId, host: t.host, reason, delayMs });
  }
}
