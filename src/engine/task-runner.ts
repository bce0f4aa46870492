import { hash } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import {
  AbortedError,
  ChangeDeliveryError,
  ContentTypeError,
  FetchError,
  HtmlTooDeepError,
  HttpStatusError,
  ProxyError,
  RedirectOutOfScopeError,
} from '../core/errors.js';
import type { CrawlEmitter } from '../core/events.js';
import { diffFields, fieldsHash } from '../core/field-diff.js';
import { NO_DIRECTIVES, pageDirectives } from '../core/meta-robots.js';
import { nextRecrawlInterval } from '../core/recrawl-interval.js';
import { hostInScope, normaliseInScope } from '../core/url.js';
import type { Outcome, Permit } from '../ports/control-plane.js';
import type { Extraction } from '../ports/extractor.js';
import type { Fetcher, FetchResponse } from '../ports/fetcher.js';
import type { EnqueueRequest, Frontier, Task } from '../ports/frontier.js';
import type { ChangeRecord, ChangeSink, PageState, PageStateStore } from '../ports/page-state.js';
import type { RobotsChecker, RobotsVerdict } from '../ports/robots.js';
import { type ResultRecord, recordKey, type Sink } from '../ports/sink.js';
import type { JobRuntime, RetryPolicy } from './job-runtime.js';
import {
  conditionalHeaders,
  hasValidator,
  unchangedRecord,
  validEtag,
  validLastModified,
} from './page-memory.js';
import type { PartialRecords } from './partial-records.js';

export interface TaskRunnerDeps {
  readonly frontier: Frontier;
  readonly fetcher: Fetcher;
  readonly sinks: readonly Sink[];
  /** The sinks of one job (sinks with a `jobs` filter); default all of `sinks`. */
  readonly sinksFor?: (jobId: string) => readonly Sink[];
  /** Records a crashed run left in some sinks only: not written to those again. */
  readonly partial?: PartialRecords;
  readonly jobs: ReadonlyMap<string, JobRuntime>;
  readonly retry: RetryPolicy;
  readonly clock: Clock;
  readonly events: CrawlEmitter;
  /** Previous fields per page, for change detection. */
  readonly pageState?: PageStateStore;
  readonly changeSinks?: readonly ChangeSink[];
  /** robots.txt checks (adapters/robots/robots-cache.ts); undefined turns them off for every job. */
  readonly robots?: RobotsChecker;
  /** Event-loop lag now, in ms, for the limiter's lag discount. */
  readonly lagMs: () => number;
  /** Milliseconds until the host's open breaker lets a probe through (0: not open). */
  readonly breakerRetryInMs?: (host: string) => number;
}

/** How long after the next half-open a task whose failure left its host's breaker open is due. */
const BREAKER_RETRY_MARGIN_MS = 1000;

/**
 * The URL a task requests: as it was discovered (Task.requestUrl), or its key when the two are
 * the same. Robots rules, logs and records see it; page state and dedupe use the key.
 */
function wireUrl(task: Task): string {
  return task.requestUrl ?? task.url;
}

/** What happened to one task, for the scheduler's counters. */
export type TaskResult = 'ok' | 'retry' | 'dead' | 'skipped' | 'deferred' | 'lost';

/**
 * Runs one leased task to its end: fetch, classify, extract, enqueue links, write the
 * record, ack. Order matters for exactly-once records: links are enqueued and the record
 * written before the ack, so a crash at any point leaves the task leased and recoverable.
 */
export class TaskRunner {
  constructor(private readonly deps: TaskRunnerDeps) {}

  async run(task: Task, permit: Permit, signal: AbortSignal): Promise<TaskResult> {
    const job = this.deps.jobs.get(task.jobId);
    if (!job) {
      permit.release({ kind: 'ignore' });
      return this.dead(task, 'unknown_job');
    }
    if (job.robots && this.deps.robots) {
      let verdict: RobotsVerdict;
      try {
        // The task's URL as it was discovered; the job's own User-Agent picks its product token.
        verdict = await this.deps.robots.check(wireUrl(task), signal, job.headers?.['user-agent']);
      } catch (err) {
        return this.onFetchError(task, permit, err);
      }
      if (verdict.kind === 'unreachable') {
        // RFC 9309 §2.3.1.4: nothing on the host is fetched; the task waits, uncharged, until
        // robots.txt is fetched again (never dead-lettered for this).
        permit.release({ kind: 'ignore' });
        return this.waitForRobots(task, verdict.retryAt);
      }
      if (verdict.kind === 'disallow') {
        permit.release({ kind: 'ignore' });
        return this.skip(task, 'robots');
      }
    }
    const prev = await this.#previous(task, job);
    // A recrawl asks for the page only if it changed since the validators of its last 200.
    const headers = job.recrawl ? conditionalHeaders(prev, job.headers) : job.headers;
    let res: FetchResponse;
    try {
      res = await this.deps.fetcher.fetch({
        url: wireUrl(task),
        signal,
        ...(job.method !== undefined ? { method: job.method } : {}),
        ...(headers !== undefined ? { headers } : {}),
        ...(job.proxy !== undefined ? { proxy: job.proxy } : {}),
        ...(job.body !== undefined ? { body: job.body } : {}),
        followRedirect: (target) => this.#followRedirect(task, job, target),
        ...(job.render !== undefined ? { render: job.render } : {}),
      });
    } catch (err) {
      return this.onFetchError(task, permit, err);
    }
    const retryAfterMs = this.deps.retry.retryAfterMs(res.headers['retry-after']);
    if (res.status >= 200 && res.status < 300) {
      permit.release(this.#success(res));
    } else if (res.status === 429 || res.status === 503) {
      permit.release({ kind: 'dropped', status: res.status, retryAfterMs });
    } else if (res.status >= 500 || res.status === 408) {
      permit.release({ kind: 'failure', status: res.status });
    } else {
      permit.release(this.#success(res));
    }
    this.deps.events.emit('fetched', {
      jobId: task.jobId,
      host: task.host,
      url: wireUrl(task),
      status: res.status,
      durationMs: res.totalMs,
      ttfbMs: res.ttfbMs,
      wireBytes: res.wireBytes,
      bytes: res.body.length,
    });
    if (res.status >= 200 && res.status < 300) return this.onSuccess(task, job, res, prev);
    // 304 only answers a request that carried a validator; one to a request without is an
    // error (http_304 below), as the server answered a question nobody asked.
    if (res.status === 304 && job.recrawl && hasValidator(prev))
      return this.onUnchanged(task, job, res, prev);
    const httpErr = new HttpStatusError(res.status);
    if (httpErr.retryable) return this.retryOrDead(task, httpErr.reason, retryAfterMs);
    return this.dead(task, httpErr.reason);
  }

  /**
   * The limiter's latency sample. The fetcher's per-response wait estimate is what gets taken
   * off the time to first byte; the lag monitor's figure (a mean over the last second, or
   * Infinity on a saturated loop) only decides whether the sample is usable. Subtracting the
   * stale mean made an unloaded probe right after a busy second read 47 ms on a 51 ms server;
   * judging usability by the per-response estimate threw out every sample of a zero-latency
   * site, where the crawler's own work is most of each 2 ms round trip, and left the limit
   * wherever slow start stood (8 or 16, 10% slower than at 64).
   */
  #success(res: FetchResponse): Outcome {
    return {
      kind: 'success',
      ttfbMs: res.ttfbMs,
      lagMs: this.deps.lagMs(),
      queuedMs: res.queuedMs,
    };
  }

  /**
   * Scope across redirects: a redirect within the scope is followed; one from a seed (depth 0)
   * of a job whose config names no hosts takes its target host into the scope (apex -> www,
   * http -> https, a moved shop), so the links found there are crawled; any other leaves the
   * scope and ends the fetch (the task is skipped as redirect_out_of_scope).
   */
  #followRedirect(task: Task, job: JobRuntime, target: URL): boolean {
    if (hostInScope(target, job.scope)) return true;
    const hosts = job.scope.redirectHosts;
    if (hosts === undefined || task.depth !== 0) return false;
    hosts.add(target.host);
    this.deps.events.emit('scopeWidened', { jobId: task.jobId, host: target.host, from: task.host });
    return true;
  }

  private async onFetchError(task: Task, permit: Permit, err: unknown): Promise<TaskResult> {
    if (err instanceof RedirectOutOfScopeError) {
      // The server answered (a redirect): not a failure of the host.
      permit.release({ kind: 'ignore' });
      return this.skip(task, err.reason);
    }
    const fe = err instanceof FetchError ? err : new FetchError(String(err), { cause: err });
    this.deps.events.emit('fetchError', {
      jobId: task.jobId,
      host: task.host,
      reason: fe.reason,
      code: fe.code,
    });
    if (fe instanceof AbortedError) {
      permit.release({ kind: 'ignore' });
      // Aborted by us (drain deadline): give the task back without charging an attempt.
      await this.deps.frontier.retry(task, {
        at: this.deps.clock.now(),
        reason: 'aborted',
        chargeAttempt: false,
      });
      return 'deferred';
    }
    if (fe instanceof ContentTypeError) {
      permit.release({ kind: 'success', ttfbMs: 0, lagMs: 0 });
      return this.skip(task, 'content_type');
    }
    // A proxy's failure says nothing about the target host: its breaker and limit stay as they are.
    const overload = fe.retryable && !(fe instanceof ProxyError);
    permit.release(overload ? { kind: 'dropped' } : { kind: 'ignore' });
    if (fe.retryable) return this.retryOrDead(task, fe.reason);
    return this.dead(task, fe.reason);
  }

  /** The page's stored state, when its job keeps one (change detection or recrawls). */
  async #previous(task: Task, job: JobRuntime): Promise<PageState | undefined> {
    const store = this.deps.pageState;
    if (!store || !(job.detectChanges || job.recrawl)) return undefined;
    return store.get(task.jobId, task.url);
  }

  /**
   * A conditional recrawl answered 304: no body, so no extraction, no links and no change
   * record; the previous fields stand and the page's interval grows (when adaptive).
   */
  private async onUnchanged(
    task: Task,
    job: JobRuntime,
    res: FetchResponse,
    prev: PageState,
  ): Promise<TaskResult> {
    const now = this.deps.clock.now();
    if (job.recordUnchanged !== false) {
      const record = unchangedRecord(
        {
          url: wireUrl(task),
          key: task.url,
          finalUrl: res.url,
          jobId: task.jobId,
          taskId: task.id,
          generation: task.generation,
          fetchedAt: new Date(now).toISOString(),
          depth: task.depth,
          contentType: res.contentType,
          durationMs: Math.round(res.totalMs),
        },
        prev,
      );
      await this.#write(task, record);
    }
    this.deps.events.emit('unchanged', {
      jobId: task.jobId,
      host: task.host,
      savedBytes: prev.bodyBytes ?? 0,
    });
    const intervalMs = job.recrawl ? nextRecrawlInterval(job.recrawl, prev.intervalMs, false) : undefined;
    if (intervalMs !== undefined && intervalMs !== prev.intervalMs)
      await this.deps.pageState?.put(task.jobId, task.url, { ...prev, intervalMs });
    await this.deps.frontier.ack(
      task,
      intervalMs !== undefined ? { recrawlAt: now + intervalMs } : undefined,
    );
    this.deps.events.emit('pageDone', {
      jobId: task.jobId,
      host: task.host,
      url: wireUrl(task),
      status: res.status,
      fields: 0,
      extractErrors: 0,
    });
    return 'ok';
  }

  private async onSuccess(
    task: Task,
    job: JobRuntime,
    res: FetchResponse,
    prev: PageState | undefined,
  ): Promise<TaskResult> {
    let extraction: Extraction;
    try {
      extraction = job.extractor.extract({
        url: res.url,
        contentType: res.contentType,
        contentTypeHeader: res.headers['content-type'],
        body: res.body,
        ...(job.robotsMeta ? { robotsNames: ['robots', job.robotsToken ?? 'crawld'] } : {}),
      });
    } catch (err) {
      // The HTML extractors refuse a page nested thousands deep: any parser would block the
      // event loop for minutes on it.
      if (err instanceof HtmlTooDeepError) return this.skip(task, err.reason);
      // An extractor bug must not take the daemon down: record the page without fields.
      extraction = { fields: {}, links: [], errors: [`extractor: ${String(err)}`] };
    }
    const directives = job.robotsMeta
      ? pageDirectives(extraction.robotsMeta ?? [], res.headers['x-robots-tag'], job.robotsToken ?? 'crawld')
      : NO_DIRECTIVES;
    // nofollow / none: no link on this page is followed (counted as discovered, not added).
    await this.enqueueLinks(task, job, directives.nofollow ? { ...extraction, links: [] } : extraction);
    const record: ResultRecord = {
      url: wireUrl(task),
      key: task.url,
      finalUrl: res.url,
      jobId: task.jobId,
      taskId: task.id,
      generation: task.generation,
      status: res.status,
      fetchedAt: new Date(this.deps.clock.now()).toISOString(),
      depth: task.depth,
      contentType: res.contentType,
      ...(extraction.encoding !== undefined ? { encoding: extraction.encoding } : {}),
      contentHash: hash('sha256', res.body, 'hex'),
      bytes: res.body.length,
      durationMs: Math.round(res.totalMs),
      fields: extraction.fields,
      ...(extraction.items ? { items: extraction.items } : {}),
      ...(directives.noindex ? { noindex: true as const } : {}),
      ...(extraction.canonicalUrl !== undefined ? { canonicalUrl: extraction.canonicalUrl } : {}),
    };
    if (directives.noindex && job.dropNoindex === true) {
      // The job keeps noindex pages out of its sinks: links were followed, no record is written.
      this.deps.events.emit('skipped', {
        jobId: task.jobId,
        host: task.host,
        url: wireUrl(task),
        reason: 'noindex',
      });
      await this.deps.frontier.ack(task, this.#recrawl(job));
      return 'skipped';
    }
    await this.#write(task, record);
    let intervalMs: number | undefined;
    if (job.detectChanges || job.recrawl) {
      const watched = extraction.items
        ? { ...extraction.fields, items: extraction.items }
        : extraction.fields;
      try {
        intervalMs = await this.detectChange(task, job, watched, prev, res, record.contentHash);
      } catch (err) {
        // A change sink gave up (webhook down past its retries): the page goes to the DLQ with
        // its state not updated, so a redrive detects the change again and re-delivers it.
        if (err instanceof ChangeDeliveryError) return this.dead(task, err.reason);
        throw err;
      }
    }
    intervalMs ??= job.recrawlIntervalMs;
    const recrawlAt = intervalMs !== undefined ? this.deps.clock.now() + intervalMs : undefined;
    await this.deps.frontier.ack(task, recrawlAt !== undefined ? { recrawlAt } : undefined);
    this.deps.events.emit('pageDone', {
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

  /** Writes a record to the job's sinks, once each across a crash (PartialRecords). */
  async #write(task: Task, record: ResultRecord): Promise<void> {
    const key = recordKey(record);
    for (const sink of this.deps.sinksFor?.(task.jobId) ?? this.deps.sinks) {
      if (this.deps.partial?.holds(key, sink)) continue;
      try {
        await sink.write(record);
      } catch (err) {
        // The task comes back when its lease expires; the sinks written so far are not
        // written again then. Sinks after this one were not reached and hold nothing.
        for (const s of this.deps.sinksFor?.(task.jobId) ?? this.deps.sinks) {
          if (s === sink) break;
          this.deps.partial?.add(key, s);
        }
        throw err;
      }
      this.deps.events.emit('sinkWrite', { sink: sink.name, records: 1 });
    }
    this.deps.partial?.done(key);
  }

  /**
   * Compares with the previous crawl's fields and stores the page's new state (fields,
   * validators, body size, next recrawl interval, which it returns). The change record is
   * written before the new state is stored, so a crash between the two repeats the record
   * (at-least-once; consumers dedupe on taskId + generation) rather than losing it.
   */
  private async detectChange(
    task: Task,
    job: JobRuntime,
    fields: Record<string, unknown>,
    prev: PageState | undefined,
    res: FetchResponse,
    contentHash: string,
  ): Promise<number | undefined> {
    const store = this.deps.pageState;
    if (!store) return undefined;
    const now = this.deps.clock.now();
    const hash = fieldsHash(fields);
    // Without fields to compare, a new body is the change.
    const changed =
      prev === undefined
        ? undefined
        : prev.fieldsHash !== hash ||
          (Object.keys(fields).length === 0 &&
            prev.contentHash !== undefined &&
            prev.contentHash !== contentHash);
    if (job.detectChanges && prev && prev.fieldsHash !== hash) {
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
      for (const sink of this.deps.changeSinks ?? []) {
        await sink.write(change);
        this.deps.events.emit('sinkWrite', { sink: sink.name, records: 1 });
      }
      this.deps.events.emit('change', {
        jobId: task.jobId,
        host: task.host,
        url: wireUrl(task),
        fields: Object.keys(change.changes),
      });
    }
    const intervalMs = job.recrawl ? nextRecrawlInterval(job.recrawl, prev?.intervalMs, changed) : undefined;
    const etag = job.recrawl ? validEtag(res.headers.etag) : undefined;
    const lastModified = job.recrawl ? validLastModified(res.headers['last-modified']) : undefined;
    const next: PageState = {
      fieldsHash: hash,
      fields,
      // The time these fields were first seen: unchanged fields keep their date.
      fetchedAt: prev && prev.fieldsHash === hash ? prev.fetchedAt : now,
      ...(etag !== undefined ? { etag } : {}),
      ...(lastModified !== undefined ? { lastModified } : {}),
      ...(job.recrawl ? { bodyBytes: res.body.length, contentHash } : {}),
      ...(intervalMs !== undefined ? { intervalMs } : {}),
    };
    if (!prev || !samePageState(prev, next)) await store.put(task.jobId, task.url, next);
    return intervalMs;
  }

  private async enqueueLinks(task: Task, job: JobRuntime, extraction: Extraction): Promise<void> {
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
      requests.length > 0
        ? await this.deps.frontier.enqueue(requests)
        : { added: 0, duplicates: 0, dropped: 0 };
    this.deps.events.emit('links', {
      jobId: task.jobId,
      discovered: extraction.links.length,
      outOfScope,
      overCap: extraction.links.length - links.length,
      ...result,
    });
  }

  private async retryOrDead(task: Task, reason: string, retryAfterMs?: number): Promise<TaskResult> {
    const attempt = task.attempts + 1;
    if (attempt >= this.deps.retry.maxAttempts) return this.dead(task, reason);
    // A failure that left the host's breaker open (it tripped it, or it was the half-open
    // probe) comes back after the next probe, not as that probe: the queue's head would
    // otherwise be the probe at every half-open and spend its whole attempt budget on one
    // outage while the host's other tasks wait.
    const breakerMs = this.deps.breakerRetryInMs?.(task.host) ?? 0;
    const backoffMs = this.deps.retry.delayMs(attempt, retryAfterMs);
    const delayMs = breakerMs > 0 ? Math.max(backoffMs, breakerMs + BREAKER_RETRY_MARGIN_MS) : backoffMs;
    await this.deps.frontier.retry(task, {
      at: this.deps.clock.now() + delayMs,
      reason,
      chargeAttempt: true,
    });
    this.deps.events.emit('retry', {
      jobId: task.jobId,
      host: task.host,
      url: wireUrl(task),
      reason,
      attempt,
      delayMs,
    });
    return 'retry';
  }

  #recrawl(job: JobRuntime): { recrawlAt: number } | undefined {
    return job.recrawlIntervalMs !== undefined
      ? { recrawlAt: this.deps.clock.now() + job.recrawlIntervalMs }
      : undefined;
  }

  private async waitForRobots(task: Task, retryAt: number): Promise<TaskResult> {
    const now = this.deps.clock.now();
    await this.deps.frontier.retry(task, { at: retryAt, reason: 'robots_unreachable', chargeAttempt: false });
    this.deps.events.emit('deferred', {
      jobId: task.jobId,
      host: task.host,
      reason: 'robots_unreachable',
      delayMs: Math.max(0, retryAt - now),
    });
    return 'deferred';
  }

  /** Ends a task without a record (robots, content type, too deep): acked, counted as skipped. */
  private async skip(task: Task, reason: string): Promise<TaskResult> {
    this.deps.events.emit('skipped', { jobId: task.jobId, host: task.host, url: wireUrl(task), reason });
    await this.deps.frontier.ack(task);
    return 'skipped';
  }

  private async dead(task: Task, reason: string): Promise<TaskResult> {
    await this.deps.frontier.deadLetter(task, reason);
    this.deps.events.emit('deadLettered', {
      jobId: task.jobId,
      host: task.host,
      url: wireUrl(task),
      reason,
      attempts: task.attempts + 1,
    });
    return 'dead';
  }
}

export type { Outcome };

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
