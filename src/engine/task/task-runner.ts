import { hash } from 'node:crypto';
import { HttpStatusError } from '../../core/errors.js';
import { hostInScope } from '../../core/url.js';
import type { Outcome, Permit } from '../../ports/control-plane.js';
import type { FetchRequest, FetchResponse } from '../../ports/fetcher.js';
import type { Task } from '../../ports/frontier.js';
import type { PageState } from '../../ports/page-state.js';
import type { RobotsVerdict } from '../../ports/robots.js';
import type { JobRuntime } from '../job/job-runtime.js';
import { type AutoFetched, fetchAuto } from './auto-render.js';
import { onFetchError } from './fetch-failure.js';
import { conditionalHeaders, hasValidator } from './page-memory.js';
import { isHtml, onSuccess } from './page-success.js';
import { onUnchanged } from './page-unchanged.js';
import { type TaskResult, type TaskRunnerDeps, wireUrl } from './task-context.js';
import { deadLetter, retryOrDead, skip, waitForRobots } from './task-endings.js';

export type { TaskResult, TaskRunnerDeps };

/**
 * One leased task: robots, fetch, the answer classified for the control plane, then its outcome
 * handler. Links and record come before the ack, so a crash leaves the task leased and recoverable.
 */
export class TaskRunner {
  readonly #deps: TaskRunnerDeps;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
  }

  async run(task: Task, permit: Permit, signal: AbortSignal): Promise<TaskResult> {
    const job = this.#deps.jobs.get(task.jobId);
    if (!job) {
      permit.release({ kind: 'ignore' });
      return deadLetter(this.#deps, task, 'unknown_job');
    }
    const reKeyed = job.traps?.reKey(task, job.normalise);
    if (reKeyed !== undefined) {
      permit.release({ kind: 'ignore' });
      return this.#reKeyed(task, job, reKeyed);
    }
    if (task.depth > 0 && job.traps?.inStoppedPattern(task) === true) {
      permit.release({ kind: 'ignore' });
      job.traps.count(task.host, 'near_duplicate_series', 1);
      return skip(this.#deps, task, 'near_duplicate_series');
    }
    if (job.robots && this.#deps.robots) {
      let verdict: RobotsVerdict;
      try {
        verdict = await this.#deps.robots.check(wireUrl(task), signal, job.headers?.['user-agent']);
      } catch (err) {
        return onFetchError(this.#deps, task, permit, err);
      }
      if (verdict.kind === 'unreachable') {
        // RFC 9309 §2.3.1.4: the task waits, uncharged, never dead-lettered for this.
        permit.release({ kind: 'ignore' });
        return waitForRobots(this.#deps, task, verdict.retryAt);
      }
      if (verdict.kind === 'disallow') {
        permit.release({ kind: 'ignore' });
        return skip(this.#deps, task, 'robots');
      }
    }
    const prev = await this.#previous(task, job);
    const headers = job.recrawl ? conditionalHeaders(prev, job.headers) : job.headers;
    // The politeness gap counts from this page, not from before robots.txt (docs/politeness.md).
    permit.requestStarting?.();
    const request: FetchRequest = {
      url: wireUrl(task),
      jobId: task.jobId,
      signal,
      ...(job.method !== undefined ? { method: job.method } : {}),
      ...(headers !== undefined ? { headers } : {}),
      ...(job.proxy !== undefined ? { proxy: job.proxy } : {}),
      ...(job.body !== undefined ? { body: job.body } : {}),
      ...(job.cookieJar !== undefined ? { cookieJar: job.cookieJar } : {}),
      followRedirect: (target) => this.#followRedirect(task, job, target),
      ...(job.render !== undefined ? { render: job.render } : {}),
    };
    let fetched: AutoFetched;
    try {
      fetched =
        job.render?.kind === 'auto'
          ? await fetchAuto(this.#deps, task, job, request)
          : { res: await this.#deps.fetcher.fetch(request), path: 'http' };
    } catch (err) {
      return onFetchError(this.#deps, task, permit, err);
    }
    return this.#answered(task, job, permit, fetched, prev);
  }

  #answered(
    task: Task,
    job: JobRuntime,
    permit: Permit,
    { res, extraction }: AutoFetched,
    prev: PageState | undefined,
  ): Promise<TaskResult> {
    const retryAfterMs = this.#deps.retry.retryAfterMs(res.headers['retry-after']);
    if (res.status >= 200 && res.status < 300) {
      permit.release(this.#success(res));
    } else if (res.status === 429 || res.status === 503) {
      permit.release({ kind: 'dropped', status: res.status, retryAfterMs });
    } else if (res.status >= 500 || res.status === 408) {
      permit.release({ kind: 'failure', status: res.status });
    } else {
      permit.release(this.#success(res));
    }
    this.#deps.events.emit('fetched', {
      jobId: task.jobId,
      host: task.host,
      url: wireUrl(task),
      status: res.status,
      durationMs: res.totalMs,
      ttfbMs: res.ttfbMs,
      wireBytes: res.wireBytes,
      bytes: res.body.length,
    });
    if (job.traps?.isProbe(task)) return this.#probed(task, job, res);
    if (res.status >= 200 && res.status < 300) return onSuccess(this.#deps, task, job, res, prev, extraction);
    // A 304 to a request without a validator answers a question nobody asked: an error.
    if (res.status === 304 && job.recrawl && hasValidator(prev))
      return onUnchanged(this.#deps, task, job, res, prev);
    const httpErr = new HttpStatusError(res.status);
    if (httpErr.retryable) return retryOrDead(this.#deps, task, httpErr.reason, retryAfterMs);
    return deadLetter(this.#deps, task, httpErr.reason);
  }

  /**
   * The per-response wait estimate comes off the TTFB; the loop lag only decides whether the
   * sample is usable (docs/performance.md, _engine_, says why not the other way round).
   */
  #success(res: FetchResponse): Outcome {
    return {
      kind: 'success',
      ttfbMs: res.ttfbMs,
      lagMs: this.#deps.lagMs(),
      queuedMs: res.queuedMs,
    };
  }

  /** A seed's redirect in a job that names no hosts widens the scope (apex -> www, http -> https). */
  #followRedirect(task: Task, job: JobRuntime, target: URL): boolean {
    if (hostInScope(target, job.scope)) return true;
    const hosts = job.scope.redirectHosts;
    if (hosts === undefined || task.depth !== 0) return false;
    hosts.add(target.host);
    this.#deps.events.emit('scopeWidened', { jobId: task.jobId, host: target.host, from: task.host });
    return true;
  }

  /** Its host ignores one of its parameters: the key without them is enqueued instead. */
  async #reKeyed(task: Task, job: JobRuntime, key: string): Promise<TaskResult> {
    const r = await this.#deps.frontier.enqueue([
      { url: key, requestUrl: wireUrl(task), jobId: task.jobId, priority: task.priority, depth: task.depth },
    ]);
    job.traps?.count(task.host, 'session_like', r.duplicates);
    return skip(this.#deps, task, 'session_like');
  }

  /** The soft-404 probe's answer teaches its host; no record. */
  async #probed(task: Task, job: JobRuntime, res: FetchResponse): Promise<TaskResult> {
    const page = res.status >= 200 && res.status < 300 && isHtml(res.contentType);
    job.traps?.probed(task, page ? res : undefined, page ? hash('sha256', res.body, 'hex') : undefined);
    await this.#deps.frontier.ack(task);
    return 'probe';
  }

  async #previous(task: Task, job: JobRuntime): Promise<PageState | undefined> {
    const store = this.#deps.pageState;
    if (!store || !(job.detectChanges || job.recrawl)) return undefined;
    return store.get(task.jobId, task.url);
  }
}

export type { Outcome };
