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
  // All at once: a shared frontier sends the calls of one turn in one round trip (one by one,
  // handing back a few hundred tasks took as many round trips).
  const replies = await Promise.allSettled(
    tasks.map((t) => deps.frontier.retry(t, { at, reason, chargeAttempt: false })),
  );
  for (const [i, t] of tasks.entries()) {
    const reply = replies[i]!;
    if (reply.status === 'rejected') {
      // Unreachable store: the lease expires and the task comes back by itself.
      deps.events.emit('internalError', { where: 'handBack', error: reply.reason });
      continue;
    }
    deps.counters.deferred++;
    deps.events.emit('deferred', { jobId: t.jobId, host: t.host, reason, delayMs });
  }
}
