/** A fetch that threw: which limiter outcome it is, and how the task ends. */
import {
  AbortedError,
  ContentTypeError,
  FetchError,
  HungRequestError,
  ProxyError,
  RedirectOutOfScopeError,
} from '../../core/errors.js';
import type { Permit } from '../../ports/control-plane.js';
import type { Task } from '../../ports/frontier.js';
import type { TaskResult, TaskRunnerDeps } from './task-context.js';
import { deadLetter, retryOrDead, skip } from './task-endings.js';

export async function onFetchError(
  deps: TaskRunnerDeps,
  task: Task,
  permit: Permit,
  err: unknown,
): Promise<TaskResult> {
  if (err instanceof RedirectOutOfScopeError) {
    permit.release({ kind: 'ignore' });
    return skip(deps, task, err.reason);
  }
  const fe = err instanceof FetchError ? err : new FetchError(String(err), { cause: err });
  deps.events.emit('fetchError', {
    jobId: task.jobId,
    host: task.host,
    reason: fe.reason,
    code: fe.code,
    ...(fe instanceof HungRequestError ? { phase: fe.phase } : {}),
  });
  if (fe instanceof AbortedError) {
    permit.release({ kind: 'ignore' });
    // Aborted by us (drain deadline): uncharged.
    await deps.frontier.retry(task, {
      at: deps.clock.now(),
      reason: 'aborted',
      chargeAttempt: false,
    });
    return 'deferred';
  }
  if (fe instanceof ContentTypeError) {
    permit.release({ kind: 'success', ttfbMs: 0, lagMs: 0 });
    return skip(deps, task, 'content_type');
  }
  // A proxy's failure says nothing about the target host.
  const overload = fe.retryable && !(fe instanceof ProxyError);
  permit.release(
    fe instanceof HungRequestError ? { kind: 'hung' } : overload ? { kind: 'dropped' } : { kind: 'ignore' },
  );
  if (fe.retryable) return retryOrDead(deps, task, fe.reason);
  return deadLetter(deps, task, fe.reason);
}
