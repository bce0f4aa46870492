import { diffFields, fieldsHash } from '../../core/field-diff.js';
import { nextRecrawlInterval } from '../../core/recrawl-interval.js';
import type { FetchResponse } from '../../ports/fetcher.js';
import type { Task } from '../../ports/frontier.js';
import type { ChangeRecord, PageState } from '../../ports/page-state.js';
import type { JobRuntime } from '../job/job-runtime.js';
import { validEtag, validLastModified } from './page-memory.js';
import { type TaskRunnerDeps, wireUrl } from './task-context.js';

/**
 * The change record goes before the new state, so a crash between the two repeats the record
 * (consumers dedupe on taskId + generation) rather than losing it. Returns the next interval.
 */
export async function detectChange(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  fields: Record<string, unknown>,
  prev: PageState | undefined,
  res: FetchResponse,
  contentHash: string,
): Promise<number | undefined> {
  const store = deps.pageState;
  if (!store) return undefined;
  const now = deps.clock.now();
  const hash = fieldsHash(fields);
  const changed =
    prev === undefined
      ? undefined
      : prev.fieldsHash !== hash ||
        (Object.keys(fields).length === 0 &&
          prev.contentHash !== undefined &&
          prev.contentHash !== contentHash);
  if (job.detectChanges && prev && prev.fieldsHash !== hash) {
    await deliverChange(deps, task, prev, fields, now);
  }
  const intervalMs = job.recrawl ? nextRecrawlInterval(job.recrawl, prev?.intervalMs, changed) : undefined;
  const etag = job.recrawl ? validEtag(res.headers.etag) : undefined;
  const lastModified = job.recrawl ? validLastModified(res.headers['last-modified']) : undefined;
  const next: PageState = {
    fieldsHash: hash,
    fields,
    fetchedAt: prev && prev.fieldsHash === hash ? prev.fetchedAt : now,
    ...(etag !== undefined ? { etag } : {}),
    ...(lastModified !== undefined ? { lastModified } : {}),
    ...(job.recrawl ? { bodyBytes: res.body.length, contentHash } : {}),
    ...(intervalMs !== undefined ? { intervalMs } : {}),
  };
  if (!prev || !samePageState(prev, next)) await store.put(task.jobId, task.url, next);
  return intervalMs;
}

async function deliverChange(
  deps: TaskRunnerDeps,
  task: Task,
  prev: PageState,
  fields: Record<string, unknown>,
  now: number,
): Promise<void> {
  const change: ChangeRecord = {
    kind: 'change',
    url: wireUrl(task),
    jobId: task.jobId,
    taskId: task.id,
    generation: task.generation,
    detectedAt: new Date(now).toISOString(),
    previousFetchedAt: new Date(prev.fetchedAt).toISOString(),
    changes: diffFields(prev.fields, fields),
  };
  for (const sink of deps.changeSinks ?? []) {
    await sink.write(change);
    deps.events.emit('sinkWrite', { sink: sink.name, records: 1 });
  }
  deps.events.emit('change', {
    jobId: task.jobId,
    host: task.host,
    url: wireUrl(task),
    fields: Object.keys(change.changes),
  });
}

function samePageState(a: PageState, b: PageState): boolean {
  return (
    a.fieldsHash === b.fieldsHash &&
    a.fetchedAt === b.fetchedAt &&
    a.etag === b.etag &&
    a.lastModified === b.lastModified &&
    a.bodyBytes === b.bodyBytes &&
    a.contentHash === b.contentHash &&
    a.intervalMs === b.intervalMs
  );
}
