/** A 304: no extraction, links or change record; the previous fields stand, the interval grows. */
import { nextRecrawlInterval } from '../../core/recrawl-interval.js';
import type { FetchResponse } from '../../ports/fetcher.js';
import type { Task } from '../../ports/frontier.js';
import type { PageState } from '../../ports/page-state.js';
import type { JobRuntime } from '../job/job-runtime.js';
import { unchangedRecord } from './page-memory.js';
import { writeRecord } from './record-writer.js';
import { recordHead, type TaskResult, type TaskRunnerDeps, wireUrl } from './task-context.js';

export async function onUnchanged(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  res: FetchResponse,
  prev: PageState,
): Promise<TaskResult> {
  const now = deps.clock.now();
  if (job.recordUnchanged !== false) {
    const record = unchangedRecord(
      {
        ...recordHead(task, res),
        fetchedAt: new Date(now).toISOString(),
        depth: task.depth,
        contentType: res.contentType,
        durationMs: Math.round(res.totalMs),
      },
      prev,
    );
    await writeRecord(deps, task, record);
  }
  deps.events.emit('unchanged', {
    jobId: task.jobId,
    host: task.host,
    savedBytes: prev.bodyBytes ?? 0,
  });
  const intervalMs = job.recrawl ? nextRecrawlInterval(job.recrawl, prev.intervalMs, false) : undefined;
  if (intervalMs !== undefined && intervalMs !== prev.intervalMs)
    await deps.pageState?.put(task.jobId, task.url, { ...prev, intervalMs });
  await deps.frontier.ack(task, intervalMs !== undefined ? { recrawlAt: now + intervalMs } : undefined);
  deps.events.emit('pageDone', {
    jobId: task.jobId,
    host: task.host,
    url: wireUrl(task),
    status: res.status,
    fields: 0,
    extractErrors: 0,
  });
  return 'ok';
}
