/** An answered page: extract, links, record, change, then the ack (last, so a crash can recover). */
import { hash } from 'node:crypto';
import { ChangeDeliveryError, HtmlTooDeepError } from '../../core/errors.js';
import { NO_DIRECTIVES, pageDirectives, type RobotsDirectives } from '../../core/meta-robots.js';
import type { Extraction } from '../../ports/extractor.js';
import type { FetchResponse } from '../../ports/fetcher.js';
import type { Task } from '../../ports/frontier.js';
import type { PageState } from '../../ports/page-state.js';
import type { ResultRecord } from '../../ports/sink.js';
import type { JobRuntime } from '../job/job-runtime.js';
import { detectChange } from './change-detection.js';
import { extractPage } from './extract-page.js';
import { enqueueLinks } from './link-enqueue.js';
import { writeRecord } from './record-writer.js';
import { recordHead, type TaskResult, type TaskRunnerDeps, wireUrl } from './task-context.js';
import { deadLetter, skip } from './task-endings.js';

export async function onSuccess(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  res: FetchResponse,
  prev: PageState | undefined,
  extracted?: Extraction | HtmlTooDeepError,
): Promise<TaskResult> {
  const extraction = extracted ?? extractPage(job, res);
  // A page nested thousands deep would block any parser for minutes.
  if (extraction instanceof HtmlTooDeepError) return skip(deps, task, extraction.reason);
  const directives = job.robotsMeta
    ? pageDirectives(extraction.robotsMeta ?? [], res.headers['x-robots-tag'], job.robotsToken ?? 'crawld')
    : NO_DIRECTIVES;
  const contentHash = hash('sha256', res.body, 'hex');
  const notExpanded = await readTraps(deps, task, job, res, contentHash);
  const follow = !directives.nofollow && notExpanded === undefined;
  await enqueueLinks(deps, task, job, follow ? extraction : { ...extraction, links: [] });
  const record = {
    ...resultRecord(task, res, extraction, directives, deps.clock.now(), contentHash),
    ...(notExpanded !== undefined ? { trap: notExpanded } : {}),
  };
  if (directives.noindex && job.dropNoindex === true) {
    deps.events.emit('skipped', {
      jobId: task.jobId,
      host: task.host,
      url: wireUrl(task),
      reason: 'noindex',
    });
    await deps.frontier.ack(task, recrawlAfter(deps, job));
    return 'skipped';
  }
  await writeRecord(deps, task, record);
  let intervalMs: number | undefined;
  if (job.detectChanges || job.recrawl) {
    const watched = extraction.items ? { ...extraction.fields, items: extraction.items } : extraction.fields;
    try {
      intervalMs = await detectChange(deps, task, job, watched, prev, res, record.contentHash);
    } catch (err) {
      // State not updated, so a redrive detects the change again and re-delivers it.
      if (err instanceof ChangeDeliveryError) return deadLetter(deps, task, err.reason);
      throw err;
    }
  }
  intervalMs ??= job.recrawlIntervalMs;
  const recrawlAt = intervalMs !== undefined ? deps.clock.now() + intervalMs : undefined;
  await deps.frontier.ack(task, recrawlAt !== undefined ? { recrawlAt } : undefined);
  deps.events.emit('pageDone', {
    jobId: task.jobId,
    host: task.host,
    url: wireUrl(task),
    status: res.status,
    fields: Object.keys(extraction.fields).length,
    extractErrors: extraction.errors.length,
    decodeFallback: extraction.encodingFallback === true,
  });
  return 'ok';
}

/** Why a trap rule stops the page's links, if one does; the host's first page enqueues its soft-404 probe. */
async function readTraps(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  res: FetchResponse,
  contentHash: string,
): Promise<NonNullable<ResultRecord['trap']> | undefined> {
  if (job.traps === undefined || !isHtml(res.contentType)) return undefined;
  const { verdict, probe } = job.traps.observe(task, res, contentHash);
  if (probe !== undefined) await deps.frontier.enqueue([probe]);
  return verdict.notExpanded;
}

export function isHtml(contentType: string): boolean {
  return contentType === 'text/html' || contentType === 'application/xhtml+xml';
}

function resultRecord(
  task: Task,
  res: FetchResponse,
  extraction: Extraction,
  directives: RobotsDirectives,
  now: number,
  contentHash: string,
): ResultRecord {
  return {
    ...recordHead(task, res),
    status: res.status,
    fetchedAt: new Date(now).toISOString(),
    depth: task.depth,
    contentType: res.contentType,
    ...(extraction.encoding !== undefined ? { encoding: extraction.encoding } : {}),
    contentHash,
    bytes: res.body.length,
    durationMs: Math.round(res.totalMs),
    fields: extraction.fields,
    ...(extraction.items ? { items: extraction.items } : {}),
    ...(directives.noindex ? { noindex: true as const } : {}),
    ...(extraction.canonicalUrl !== undefined ? { canonicalUrl: extraction.canonicalUrl } : {}),
  };
}

function recrawlAfter(deps: TaskRunnerDeps, job: JobRuntime): { recrawlAt: number } | undefined {
  return job.recrawlIntervalMs !== undefined
    ? { recrawlAt: deps.clock.now() + job.recrawlIntervalMs }
    : undefined;
}
