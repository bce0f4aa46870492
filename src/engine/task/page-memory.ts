/**
 * What crawld remembers of a page between crawls, and what it sends back: validators for a
 * conditional request (RFC 9110 §13.1.1-2), and the record of a 304, which repeats the fields
 * last extracted because they still stand.
 */
import type { PageState } from '../../ports/page-state.js';
import type { ResultRecord } from '../../ports/sink.js';

/** If-None-Match / If-Modified-Since from the stored validators, unless the job sets them itself. */
export function conditionalHeaders(
  prev: PageState | undefined,
  jobHeaders: Readonly<Record<string, string>> | undefined,
): Record<string, string> | undefined {
  if (!prev || (prev.etag === undefined && prev.lastModified === undefined)) return jobHeaders;
  const own = new Set(Object.keys(jobHeaders ?? {}).map((k) => k.toLowerCase()));
  if (own.has('if-none-match') || own.has('if-modified-since')) return jobHeaders;
  return {
    ...jobHeaders,
    // Weak and strong tags go back as received: If-None-Match compares weakly (§13.1.2).
    ...(prev.etag !== undefined ? { 'if-none-match': prev.etag } : {}),
    ...(prev.lastModified !== undefined ? { 'if-modified-since': prev.lastModified } : {}),
  };
}

/** Whether a request carried a stored validator (so a 304 to it means "unchanged"). */
export function hasValidator(prev: PageState | undefined): prev is PageState {
  return prev !== undefined && (prev.etag !== undefined || prev.lastModified !== undefined);
}

/** An ETag worth storing: a quoted opaque tag, weak or strong; anything else is ignored. */
export function validEtag(v: string | undefined): string | undefined {
  return v !== undefined && /^(W\/)?"[^"]*"$/.test(v.trim()) && v.length <= 1024 ? v.trim() : undefined;
}

/** A Last-Modified worth storing: a parseable HTTP date, kept verbatim. */
export function validLastModified(v: string | undefined): string | undefined {
  return v !== undefined && v.length <= 64 && !Number.isNaN(Date.parse(v)) ? v : undefined;
}

/** The fields and items of a stored state, split as the job's records carry them. */
function splitItems(fields: Record<string, unknown>): Pick<ResultRecord, 'fields' | 'items'> {
  const { items, ...rest } = fields;
  if (Array.isArray(items) && items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i)))
    return { fields: rest, items: items as Record<string, unknown>[] };
  return { fields };
}

/** The record of a 304: no body was sent, so the previous content hash and fields stand. */
export function unchangedRecord(
  base: Omit<ResultRecord, 'status' | 'contentHash' | 'bytes' | 'fields' | 'items' | 'unchanged'>,
  prev: PageState,
): ResultRecord {
  return {
    ...base,
    status: 304,
    unchanged: true,
    contentHash: prev.contentHash ?? '',
    bytes: 0,
    ...splitItems(prev.fields),
  };
}
