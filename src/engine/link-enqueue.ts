/**
 * The links of a fetched page into the frontier: within the job's depth, per-link depth and
 * per-page cap, normalised and scope-checked; counted as discovered, out of scope and over cap.
 */
import { normaliseInScope } from '../core/url.js';
import type { Extraction } from '../ports/extractor.js';
import type { EnqueueRequest, Task } from '../ports/frontier.js';
import type { JobRuntime } from './job-runtime.js';
import type { TaskRunnerDeps } from './task-context.js';

export async function enqueueLinks(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  extraction: Extraction,
): Promise<void> {
  const depth = task.depth + 1;
  const requests: EnqueueRequest[] = [];
  let outOfScope = 0;
  const cap = job.maxLinksPerPage ?? Number.POSITIVE_INFINITY;
  const links = extraction.links.length > cap ? extraction.links.slice(0, cap) : extraction.links;
  if (task.depth < job.scope.maxDepth) {
    for (const link of links) {
      if (link.maxDepth !== undefined && task.depth >= link.maxDepth) continue;
      const v = normaliseInScope(link.url, depth, job.scope, job.normalise);
      if (!v.ok) {
        outOfScope++;
        continue;
      }
      requests.push(
        v.requestUrl === undefined
          ? { url: v.url, jobId: task.jobId, priority: link.priority, depth }
          : { url: v.url, requestUrl: v.requestUrl, jobId: task.jobId, priority: link.priority, depth },
      );
    }
  }
  const result =
    requests.length > 0 ? await deps.frontier.enqueue(requests) : { added: 0, duplicates: 0, dropped: 0 };
  deps.events.emit('links', {
    jobId: task.jobId,
    discovered: extraction.links.length,
    outOfScope,
    overCap: extraction.links.length - links.length,
    ...result,
  });
}
