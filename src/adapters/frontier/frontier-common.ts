/** Validation shared by the frontier adapters: each rejects the same inputs, derives the same host. */
import { CrawldError, InvalidArgumentError, InvalidUrlError } from '../../core/errors.js';
import type { EnqueueRequest, LeaseOptions, Task } from '../../ports/frontier.js';

/** An enqueue request with defaults applied and its host derived. */
export interface PreparedRequest {
  readonly url: string;
  /** Undefined when the URL to request is `url` itself. */
  readonly requestUrl: string | undefined;
  readonly host: string;
  readonly jobId: string;
  readonly priority: number;
  readonly depth: number;
  readonly notBefore: number;
  readonly force: boolean;
}

/** `URL.host` is already lower-case and omits the scheme's default port, which is the key we want. */
export function hostOf(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (err) {
    throw new InvalidUrlError(`not an absolute URL: ${url}`, { cause: err });
  }
  return parsed.host;
}

function integer(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value))
    throw new InvalidArgumentError(`${field} must be an integer, got ${value}`);
  return value;
}

/** Validates the whole batch first: a bad request rejects it instead of leaving half enqueued. */
export function prepareRequests(
  requests: readonly EnqueueRequest[],
  now: number,
  /** Requests the caller knows to be duplicates of valid URLs: their URL is not parsed again (host ''). */
  knownDuplicate?: (r: EnqueueRequest) => boolean,
): PreparedRequest[] {
  return requests.map((r) => {
    if (typeof r.jobId !== 'string' || r.jobId === '')
      throw new InvalidArgumentError('jobId must be a non-empty string');
    if (r.requestUrl !== undefined && typeof r.requestUrl !== 'string')
      throw new InvalidArgumentError('requestUrl must be a string');
    return {
      url: r.url,
      requestUrl: r.requestUrl === r.url || r.requestUrl === '' ? undefined : r.requestUrl,
      host: knownDuplicate?.(r) ? '' : hostOf(r.url),
      jobId: r.jobId,
      priority: integer(r.priority, 0, 'priority'),
      depth: integer(r.depth, 0, 'depth'),
      notBefore: integer(r.notBefore, now, 'notBefore'),
      force: r.force === true,
    };
  });
}

export function checkLeaseOptions(options: LeaseOptions): void {
  if (!Number.isSafeInteger(options.max) || options.max < 0) {
    throw new InvalidArgumentError(`lease max must be a non-negative integer, got ${options.max}`);
  }
  if (!Number.isFinite(options.leaseMs) || options.leaseMs <= 0) {
    throw new InvalidArgumentError(`leaseMs must be positive, got ${options.leaseMs}`);
  }
}

/** An adapter option that counts something (rows, tasks): a safe integer, 0 or more. */
export function checkCount(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidArgumentError(`${name} must be a non-negative integer, got ${value}`);
  }
  return value;
}

export function checkMaxPending(maxPending: number | undefined): number {
  if (maxPending === undefined) return Number.POSITIVE_INFINITY;
  return checkCount('maxPending', maxPending);
}

export function notOpenError(): CrawldError {
  return new CrawldError('frontier is not open');
}

/** Builds a Task without `undefined` optional keys, so tasks compare equal across adapters. */
export function makeTask(
  fields: Omit<Task, 'lastError' | 'requestUrl'> & {
    lastError?: string | null | undefined;
    requestUrl?: string | null | undefined;
  },
): Task {
  const { lastError, requestUrl, ...rest } = fields;
  const task: Task = requestUrl == null ? rest : { ...rest, requestUrl };
  return lastError == null ? task : { ...task, lastError };
}
