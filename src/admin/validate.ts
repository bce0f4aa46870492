/**
 * The admin API's wire format. Pure, so the CLI (which prints the same shapes from a data dir)
 * shares it; objects are strict: a misspelt `priorty` must not be silently ignored.
 */
import { z } from 'zod';
import { formatIssues } from '../config/issues.js';
import { isHttpUrl } from '../config/predicates.js';
import type { NormaliseOptions } from '../core/rules.js';
import { discoveredUrl } from '../core/url.js';
import type { DeadLetter, EnqueueRequest } from '../ports/frontier.js';

export type Parsed<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: string[] };

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

const JOB_ID_MESSAGE = 'must be a job id (1-64 letters, digits, dot, dash or underscore)';
const jobId = z.string({ error: JOB_ID_MESSAGE }).regex(/^[A-Za-z0-9_.-]{1,64}$/, { error: JOB_ID_MESSAGE });
const jsonObject = { error: 'must be a JSON object' };

/** Inclusive bounds the frontier can store (the Redis frontier packs priority into a score). */
export interface PriorityRange {
  readonly min: number;
  readonly max: number;
}

function capIssues(issues: string[]): string[] {
  if (issues.length <= MAX_ISSUES) return issues;
  return [...issues.slice(0, MAX_ISSUES), `... and ${issues.length - MAX_ISSUES} more`];
}

function parsed<T>(result: z.ZodSafeParseResult<T>): Parsed<T> {
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, issues: capIssues(formatIssues(result.error.issues)) };
}

function submitSchema(jobs: readonly SubmitJob[], range?: PriorityRange) {
  const byId = new Map(jobs.map((j) => [j.id, j]));
  const integer = { error: 'must be an integer' };
  const inRange = range ? { error: `must be in [${range.min}, ${range.max}]` } : undefined;
  const priority = z
    .number(integer)
    .int(integer)
    .check((ctx) => {
      if (range && inRange && (ctx.value < range.min || ctx.value > range.max))
        ctx.issues.push({ code: 'custom', message: inRange.error, input: ctx.value });
    });
  const url = z
    .string({ error: 'must be an absolute http(s) URL' })
    .refine(isHttpUrl, { error: 'must be an absolute http(s) URL', abort: true })
    .refine((u) => u.length <= MAX_URL_LENGTH, { error: `must be at most ${MAX_URL_LENGTH} characters` });
  const item = z.strictObject({ url, job: z.unknown().optional(), priority: priority.optional() });
  const urlsMessage = { error: `must be an array of 1 to ${MAX_SUBMIT_URLS} URLs` };
  return z
    .strictObject(
      {
        urls: z.array(z.unknown(), urlsMessage).min(1, urlsMessage).max(MAX_SUBMIT_URLS, urlsMessage),
        job: z.unknown().optional(),
        priority: priority.optional(),
      },
      jsonObject,
    )
    .transform((body, ctx) => {
      const jobOf = (value: unknown, path: (string | number)[]): SubmitJob | undefined => {
        const found = typeof value === 'string' ? byId.get(value) : undefined;
        if (!found) ctx.addIssue({ code: 'custom', path, message: `unknown job ${JSON.stringify(value)}` });
        return found;
      };
      let defaultJob = jobs[0];
      if (body.job !== undefined) defaultJob = jobOf(body.job, ['job']);
      else if (!defaultJob)
        ctx.addIssue({ code: 'custom', path: ['job'], message: 'the daemon has no jobs configured' });
      const requests: EnqueueRequest[] = [];
      body.urls.forEach((raw, i) => {
        // Anything but an object is the URL itself: its issues are reported at urls[i].
        const bare = typeof raw !== 'object' || raw === null || Array.isArray(raw);
        const result = bare ? url.safeParse(raw) : item.safeParse(raw);
        if (!result.success) {
          for (const issue of result.error.issues)
            ctx.addIssue({ ...issue, path: ['urls', i, ...issue.path] } as never);
        }
        const obj = bare ? undefined : (raw as { job?: unknown; priority?: number });
        const itemJob = obj?.job !== undefined ? jobOf(obj.job, ['urls', i, 'job']) : defaultJob;
        if (!result.success || !itemJob) return;
        const value = bare ? (result.data as string) : (result.data as { url: string }).url;
        requests.push({
          ...discoveredUrl(value, undefined, itemJob.normalise),
          jobId: itemJob.id,
          priority: obj?.priority ?? body.priority ?? itemJob.seedPriority,
          depth: 0,
          force: true,
        });
      });
      return requests;
    });
}

/**
 * POST /api/urls. Enqueued with force: an explicit submission re-crawls a page already done
 * or dead.
 */
export function parseSubmit(
  body: unknown,
  jobs: readonly SubmitJob[],
  range?: PriorityRange,
): Parsed<EnqueueRequest[]> {
  return parsed(submitSchema(jobs, range).safeParse(body));
}

export interface DlqQuery {
  readonly limit: number;
  readonly offset: number;
  readonly jobId?: string;
}

/** A repeated parameter is an array: refused. */
function intParam(min: number, max: number) {
  const message = { error: `must be an integer in [${min}, ${max}]` };
  return z
    .string(message)
    .regex(/^\d+$/, message)
    .transform(Number)
    .pipe(z.number().int(message).min(min, message).max(max, message));
}

const dlqQuerySchema = z
  .strictObject({
    limit: intParam(1, MAX_DLQ_LIMIT).optional(),
    offset: intParam(0, Number.MAX_SAFE_INTEGER).optional(),
    job: jobId.optional(),
  })
  .transform(
    ({ limit, offset, job }): DlqQuery => ({
      limit: limit ?? DEFAULT_DLQ_LIMIT,
      offset: offset ?? 0,
      ...(job !== undefined ? { jobId: job } : {}),
    }),
  );

/** Any well-formed job id: dead letters outlive a job removed from the config. */
export function parseDlqQuery(query: Record<string, unknown>): Parsed<DlqQuery> {
  return parsed(dlqQuerySchema.safeParse(query));
}

export interface RedriveRequest {
  readonly ids?: readonly string[];
  readonly jobId?: string;
}

const idsMessage = { error: `must be an array of at most ${MAX_SUBMIT_URLS} ids` };
const idMessage = { error: 'must be a non-empty string' };
const redriveSchema = z
  .strictObject(
    {
      ids: z
        .array(z.string(idMessage).min(1, idMessage).max(64, idMessage), idsMessage)
        .max(MAX_SUBMIT_URLS, idsMessage)
        .optional(),
      job: jobId.optional(),
    },
    jsonObject,
  )
  .transform(
    ({ ids, job }): RedriveRequest => ({
      ...(ids !== undefined ? { ids } : {}),
      ...(job !== undefined ? { jobId: job } : {}),
    }),
  );

const emptySchema = z.strictObject({}, jsonObject);

export function parseEmpty(body: unknown): Parsed<undefined> {
  if (body === undefined) return { ok: true, value: undefined };
  const result = parsed(emptySchema.safeParse(body));
  return result.ok ? { ok: true, value: undefined } : result;
}

/** POST /api/dlq/redrive: `{ ids?: string[], job?: string }`; an empty body redrives all. */
export function parseRedrive(body: unknown): Parsed<RedriveRequest> {
  if (body === undefined) return { ok: true, value: {} };
  return parsed(redriveSchema.safeParse(body));
}

export interface DeadLetterView {
  readonly id: string;
  readonly url: string;
  /** Its dedupe key, when it differs from `url`. */
  readonly key?: string;
  readonly job: string;
  readonly reason: string;
  readonly attempts: number;
  readonly deadAt: string;
}

export function deadLetterView(d: DeadLetter): DeadLetterView {
  return {
    id: d.id,
    url: d.requestUrl ?? d.url,
    ...(d.requestUrl !== undefined ? { key: d.url } : {}),
    job: d.jobId,
    reason: d.reason,
    attempts: d.attempts,
    deadAt: new Date(d.deadAt).toISOString(),
  };
}
