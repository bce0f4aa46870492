/** A page's links into the frontier, within depth, cap, scope and the trap rules, each refusal counted. */
import type { KeyReport } from '../../core/url.js';
import { normaliseInScope } from '../../core/url.js';
import type { Extraction } from '../../ports/extractor.js';
import type { EnqueueRequest, Task } from '../../ports/frontier.js';
import type { JobRuntime } from '../job/job-runtime.js';
import type { TaskRunnerDeps } from './task-context.js';

type Stripped = NonNullable<KeyReport['stripped']>;

export async function enqueueLinks(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  extraction: Extraction,
): Promise<void> {
  const depth = task.depth + 1;
  const requests: EnqueueRequest[] = [];
  // Links whose key lost a session id, by rule: their duplicates are URLs the rule saved.
  const stripped = new Map<Stripped, EnqueueRequest[]>();
  let outOfScope = 0;
  const cap = job.maxLinksPerPage ?? Number.POSITIVE_INFINITY;
  const links = extraction.links.length > cap ? extraction.links.slice(0, cap) : extraction.links;
  const guard = job.traps;
  if (task.depth < job.scope.maxDepth) {
    for (const link of links) {
      if (link.maxDepth !== undefined && task.depth >= link.maxDepth) continue;
      const report: KeyReport = {};
      const v = normaliseInScope(link.url, depth, job.scope, job.normalise, report);
      if (!v.ok) {
        outOfScope++;
        continue;
      }
      const trap = guard?.linkVerdict(v.url);
      if (trap !== undefined) {
        guard?.count(task.host, trap, 1);
        continue;
      }
      const req: EnqueueRequest =
        v.requestUrl === undefined
          ? { url: v.url, jobId: task.jobId, priority: link.priority, depth }
          : { url: v.url, requestUrl: v.requestUrl, jobId: task.jobId, priority: link.priority, depth };
      if (report.stripped === undefined) requests.push(req);
      else stripped.set(report.stripped, [...(stripped.get(report.stripped) ?? []), req]);
    }
  }
  const result = await enqueue(deps, requests);
  for (const [rule, batch] of stripped) {
    const r = await enqueue(deps, batch);
    guard?.count(task.host, rule, r.duplicates);
    result.added += r.added;
    result.duplicates += r.duplicates;
    result.dropped += r.dropped;
  }
  deps.events.emit('links', {
    jobId: task.jobId,
    discovered: extraction.links.length,
    outOfScope,
    overCap: extraction.links.length - links.length,
    ...result,
  });
}

interface Counts {
  added: number;
  duplicates: number;
  dropped: number;
}

async function enqueue(deps: TaskRunnerDeps, requests: EnqueueRequest[]): Promise<Counts> {
  if (requests.length === 0) return { added: 0, duplicates: 0, dropped: 0 };
  const r = await deps.frontier.enqueue(requests);
  return { added: r.added, duplicates: r.duplicates, dropped: r.dropped };
}
