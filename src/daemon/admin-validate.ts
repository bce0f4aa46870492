/**
 * The admin API's wire format: parsing of request bodies and query strings into typed
 * values (or a list of per-field issues), and the JSON shapes of its answers. Pure: no
 * I/O, so the CLI (which prints the same shapes from a data dir) can share it.
 *
 * Parsing is hand-written rather than zod because every issue must name the exact field
 * (`urls[1].url: must be an absolute http(s) URL`) and unknown keys are refused, as in
 * the config file: a misspelt `priorty` must not be silently ignored.
 */
import type { NormaliseOptions } from '../core/rules.js';
import { normaliseUrl } from '../core/url.js';
import type { DeadLetter, EnqueueRequest } from '../ports/frontier.js';
import { isHttpUrl } from './config-schema.js';

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: string[] };

/** What the submit route needs to know about a job. */
export interface SubmitJob {
  readonly id: string;
  readonly normalise: NormaliseOptions;
  /** Submissions are explicit like seeds, so they default to the seeds' priority. */
  readonly seedPriority: number;
}

/** Bounds a single request's work; a bigger batch can be split by the client. */
export const MAX_SUBMIT_URLS = 10_000;
export const MAX_URL_LENGTH = 8192;
export const MAX_DLQ_LIMIT = 10_000;
export const DEFAULT_DLQ_LIMIT = 100;
/** A 10 000-URL batch of garbage must not produce a multi-megabyte error answer. */
const MAX_ISSUES = 100;

const JOB_ID = /^[A-Za-z0-9_.-]{1,64}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownKeys(
  obj: Record<string, unknown>,
  allowed: readonly string[],
  at: string,
  out: string[],
): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) out.push(`${at}${at === '' ? '' : '.'}${key}: unknown key`);
  }
}

/** Inclusive bounds the frontier can store (the Redis frontier packs priority into a score). */
export interface PriorityRange {
  readonly min: number;
  readonly max: number;
}

function priorityIssue(v: unknown, range?: PriorityRange): string | undefined {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) return 'must be an integer';
  if (range && (v < range.min || v > range.max)) return `must be in [${range.min}, ${range.max}]`;
  return undefined;
}

function capIssues(issues: string[]): string[] {
  if (issues.length <= MAX_ISSUES) return issues;
  return [...issues.slice(0, MAX_ISSUES), `... and ${issues.length - MAX_ISSUES} more`];
}

/**
 * POST /api/urls: `{ urls: [url | {url, priority?, job?}], job?, priority? }`. Top-level
 * job and priority are defaults for the items; the default job is the first configured.
 * Every URL is normalised with its job's options (the frontier's dedupe key) and enqueued
 * with force, so an explicit submission re-crawls a page already done or dead.
 */
export function parseSubmit(
  body: unknown,
  jobs: readonly SubmitJob[],
  range?: PriorityRange,
): Parsed<EnqueueRequest[]> {
  const issues: string[] = [];
  if (!isObject(body)) return { ok: false, issues: ['(root): must be a JSON object'] };
  unknownKeys(body, ['urls', 'job', 'priority'], '', issues);
  const byId = new Map(jobs.map((j) => [j.id, j]));
  let defaultJob = jobs[0];
  if (body.job !== undefined) {
    defaultJob = typeof body.job === 'string' ? byId.get(body.job) : undefined;
    if (!defaultJob) issues.push(`job: unknown job ${JSON.stringify(body.job)}`);
  } else if (!defaultJob) {
    issues.push('job: the daemon has no jobs configured');
  }
  const defaultPriority = body.priority;
  const defaultIssue = defaultPriority === undefined ? undefined : priorityIssue(defaultPriority, range);
  if (defaultIssue) issues.push(`priority: ${defaultIssue}`);
  const urls = body.urls;
  if (!Array.isArray(urls) || urls.length === 0 || urls.length > MAX_SUBMIT_URLS) {
    issues.push(`urls: must be an array of 1 to ${MAX_SUBMIT_URLS} URLs`);
    return { ok: false, issues: capIssues(issues) };
  }

  const requests: EnqueueRequest[] = [];
  urls.forEach((item: unknown, i) => {
    const at = isObject(item) ? `urls[${i}].url` : `urls[${i}]`;
    let url: unknown = item;
    let job = defaultJob;
    let priority = defaultPriority;
    if (isObject(item)) {
      unknownKeys(item, ['url', 'job', 'priority'], `urls[${i}]`, issues);
      url = item.url;
      if (item.job !== undefined) {
        job = typeof item.job === 'string' ? byId.get(item.job) : undefined;
        if (!job) issues.push(`urls[${i}].job: unknown job ${JSON.stringify(item.job)}`);
      }
      if (item.priority !== undefined) {
        priority = item.priority;
        const p = priorityIssue(priority, range);
        if (p) issues.push(`urls[${i}].priority: ${p}`);
      }
    }
    if (typeof url !== 'string' || !isHttpUrl(url)) {
      issues.push(`${at}: must be an absolute http(s) URL`);
      return;
    }
    if (url.length > MAX_URL_LENGTH) {
      issues.push(`${at}: must be at most ${MAX_URL_LENGTH} characters`);
      return;
    }
    if (!job) return;
    requests.push({
      url: normaliseUrl(url, undefined, job.normalise),
      jobId: job.id,
      priority: typeof priority === 'number' ? priority : job.seedPriority,
      depth: 0,
      force: true,
    });
  });
  return issues.length > 0 ? { ok: false, issues: capIssues(issues) } : { ok: true, value: requests };
}

export interface DlqQuery {
  readonly limit: number;
  readonly offset: number;
  readonly jobId?: string;
}

function intParam(v: unknown, name: string, min: number, max: number, issues: string[]): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    issues.push(`${name}: must be an integer in [${min}, ${max}]`);
    return undefined;
  }
  return n;
}

/**
 * GET /api/dlq?limit&offset&job. Any well-formed job id is accepted, not only configured
 * ones: dead letters outlive a job removed from the config.
 */
export function parseDlqQuery(query: Record<string, unknown>): Parsed<DlqQuery> {
  const issues: string[] = [];
  unknownKeys(query, ['limit', 'offset', 'job'], '', issues);
  const limit = intParam(query.limit, 'limit', 1, MAX_DLQ_LIMIT, issues) ?? DEFAULT_DLQ_LIMIT;
  const offset = intParam(query.offset, 'offset', 0, Number.MAX_SAFE_INTEGER, issues) ?? 0;
  const job = query.job;
  if (job !== undefined && (typeof job !== 'string' || !JOB_ID.test(job))) {
    issues.push('job: must be a job id (1-64 letters, digits, dot, dash or underscore)');
  }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: { limit, offset, ...(typeof job === 'string' ? { jobId: job } : {}) } };
}

export interface RedriveRequest {
  readonly ids?: readonly string[];
  readonly jobId?: string;
}

/** POST /api/dlq/redrive: `{ ids?: string[], job?: string }`; an empty body redrives all. */
export function parseRedrive(body: unknown): Parsed<RedriveRequest> {
  if (body === undefined) return { ok: true, value: {} };
  if (!isObject(body)) return { ok: false, issues: ['(root): must be a JSON object'] };
  const issues: string[] = [];
  unknownKeys(body, ['ids', 'job'], '', issues);
  const { ids, job } = body;
  if (ids !== undefined) {
    if (!Array.isArray(ids) || ids.length > MAX_SUBMIT_URLS) {
      issues.push(`ids: must be an array of at most ${MAX_SUBMIT_URLS} ids`);
    } else {
      ids.forEach((id: unknown, i) => {
        if (typeof id !== 'string' || id === '' || id.length > 64) {
          issues.push(`ids[${i}]: must be a non-empty string`);
        }
      });
    }
  }
  if (job !== undefined && (typeof job !== 'string' || !JOB_ID.test(job))) {
    issues.push('job: must be a job id (1-64 letters, digits, dot, dash or underscore)');
  }
  if (issues.length > 0) return { ok: false, issues: capIssues(issues) };
  return {
    ok: true,
    value: {
      ...(ids !== undefined ? { ids: ids as string[] } : {}),
      ...(job !== undefined ? { jobId: job as string } : {}),
    },
  };
}

/** One dead letter as the API and `crawld dlq list --json` print it. */
export interface DeadLetterView {
  readonly id: string;
  readonly url: string;
  readonly job: string;
  readonly reason: string;
  readonly attempts: number;
  readonly deadAt: string;
}

export function deadLetterView(d: DeadLetter): DeadLetterView {
  return {
    id: d.id,
    url: d.url,
    job: d.jobId,
    reason: d.reason,
    attempts: d.attempts,
    deadAt: new Date(d.deadAt).toISOString(),
  };
}
