/** The ways a task ends without a record: skipped (acked), retried, or dead-lettered. */
import type { Task } from '../../ports/frontier.js';
import { type TaskResult, type TaskRunnerDeps, wireUrl } from './task-context.js';

const BREAKER_RETRY_MARGIN_MS = 1000;

export async function retryOrDead(
  deps: TaskRunnerDeps,
  task: Task,
  reason: string,
  retryAfterMs?: number,
): Promise<TaskResult> {
  const attempt = task.attempts + 1;
  if (attempt >= deps.retry.maxAttempts) return deadLetter(deps, task, reason);
  // Breaker left open: back after the next probe, not as it, or the queue's head would be the
  // probe at every half-open and spend its attempts on one outage.
  const breakerMs = deps.breakerRetryInMs?.(task.host) ?? 0;
  const backoffMs = deps.retry.delayMs(attempt, retryAfterMs);
  const delayMs = breakerMs > 0 ? Math.max(backoffMs, breakerMs + BREAKER_RETRY_MARGIN_MS) : backoffMs;
  await deps.frontier.retry(task, {
    at: deps.clock.now() + delayMs,
    reason,
    chargeAttempt: true,
  });
  deps.events.emit('retry', {
    jobId: task.jobId,
    host: task.host,
    url: wireUrl(task),
    reason,
    attempt,
    delayMs,
  });
  return 'retry';
}

export async function waitForRobots(deps: TaskRunnerDeps, task: Task, retryAt: number): Promise<TaskResult> {
  const now = deps.clock.now();
  await deps.frontier.retry(task, { at: retryAt, reason: 'robots_unreachable', chargeAttempt: false });
  deps.events.emit('deferred', {
    jobId: task.jobId,
    host: task.host,
    reason: 'robots_unreachable',
    delayMs: Math.max(0, retryAt - now),
  });
  return 'deferred';
}

export async function skip(deps: TaskRunnerDeps, task: Task, reason: string): Promise<TaskResult> {
  deps.events.emit('skipped', { jobId: task.jobId, host: task.host, url: wireUrl(task), reason });
  await deps.frontier.ack(task);
  return 'skipped';
}

export async function deadLetter(deps: TaskRunnerDeps, task: Task, reason: string): Promise<TaskResult> {
  await deps.frontier.deadLetter(task, reason);
  deps.events.emit('deadLettered', {
    jobId: task.jobId,
    host: task.host,
    url: wireUrl(task),
    reason,
    attempts: task.attempts + 1,
  });
  return 'dead';
}
