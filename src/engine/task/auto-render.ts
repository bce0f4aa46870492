/**
 * `render: { kind: auto }`: HTTP, browser or both as the host's state says (core/render-choice.ts).
 * An HTTP page missing a required field is rendered before it is recorded: a wrong guess loses nothing.
 */
import { FetchError, type HtmlTooDeepError } from '../../core/errors.js';
import {
  afterCompare,
  afterMiss,
  nextPath,
  postponeCheck,
  type RenderPath,
} from '../../core/render-choice.js';
import type { Extraction } from '../../ports/extractor.js';
import type { FetchRequest, FetchResponse, RenderRequest } from '../../ports/fetcher.js';
import type { Task } from '../../ports/frontier.js';
import type { JobRuntime } from '../job/job-runtime.js';
import { extractPage } from './extract-page.js';
import { compareRendered, missingRequired } from './render-compare.js';
import type { TaskRunnerDeps } from './task-context.js';

export interface AutoFetched {
  readonly res: FetchResponse;
  readonly extraction?: Extraction | HtmlTooDeepError;
  readonly path: RenderPath;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

function renderable(res: FetchResponse): boolean {
  return res.status >= 200 && res.status < 300 && HTML_TYPES.has(res.contentType);
}

export async function fetchAuto(
  deps: TaskRunnerDeps,
  task: Task,
  job: JobRuntime,
  request: FetchRequest,
): Promise<AutoFetched> {
  const decisions = job.renderDecisions;
  const options = job.renderChoice;
  const render = job.render as RenderRequest;
  if (!decisions || !options) return { res: await deps.fetcher.fetch(request), path: 'http' };
  const before = decisions.get(task.host);
  let planned = nextPath(before, options);
  // A re-check waits for a free browser page: it must never delay the renders pages need.
  if (planned.path === 'both' && before.decision === 'http' && deps.fetcher.renderIdle?.() === false)
    planned = { path: 'http', state: postponeCheck(planned.state, options) };
  decisions.set(task.host, planned.state);
  const browser = (document?: FetchResponse) =>
    deps.fetcher.fetch({
      ...request,
      render: { ...render, kind: 'browser' },
      ...(document ? { document } : {}),
    });
  if (planned.path === 'browser') return done(deps, task, { res: await browser(), path: 'browser' });

  const httpRes = await deps.fetcher.fetch({ ...request, render: { ...render, kind: 'http' } });
  if (!renderable(httpRes)) return done(deps, task, { res: httpRes, path: 'http' });
  const httpEx = extractPage(job, httpRes);
  if (!('fields' in httpEx)) return done(deps, task, { res: httpRes, extraction: httpEx, path: 'http' });
  const required = job.requiredFields ?? [];
  const missing = missingRequired(httpEx, required);
  if (planned.path === 'http' && missing.length === 0)
    return done(deps, task, { res: httpRes, extraction: httpEx, path: 'http' });

  let rendered: FetchResponse;
  try {
    rendered = await browser(httpRes);
  } catch (err) {
    // A complete HTTP page is still a good record; an incomplete one waits for a render that works.
    if (missing.length === 0 && err instanceof FetchError && !request.signal?.aborted)
      return done(deps, task, { res: httpRes, extraction: httpEx, path: 'http' });
    throw err;
  }
  const renderedEx = extractPage(job, rendered);
  if ('fields' in renderedEx) {
    const host = decisions.get(task.host);
    if (planned.path === 'http') {
      if (missingRequired(renderedEx, required).length < missing.length) {
        decisions.set(task.host, afterMiss(host));
        deps.events.emit('renderDisagreement', { jobId: task.jobId, foundBy: 'missing_field' });
      }
    } else {
      const { agree } = compareRendered(httpEx, renderedEx, required);
      decisions.set(task.host, afterCompare(host, agree, options));
      if (!agree)
        deps.events.emit('renderDisagreement', {
          jobId: task.jobId,
          foundBy: host.decision === 'learning' ? 'sample' : 'recheck',
        });
    }
  }
  return done(deps, task, { res: rendered, extraction: renderedEx, path: 'both' });
}

function done(deps: TaskRunnerDeps, task: Task, fetched: AutoFetched): AutoFetched {
  deps.events.emit('renderPath', { jobId: task.jobId, path: fetched.path });
  return fetched;
}
