/** Validators for a conditional request (RFC 9110 §13.1.1-2), and a 304's record. */
import type { PageState } from '../../ports/page-state.js';
import type { ResultRecord } from '../../ports/sink.js';

/** Unless the job sets If-None-Match / If-Modified-Since itself. */
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

export function hasValidator(prev: PageState | undefined): prev is PageState {
  return prev !== undefined && (prev.etag !== undefined || prev.lastModified !== undefined);
}

export function validEtag(v: string | undefined): string | undefined {
  return v !== undefined && /^(W\/)?"[^"]*"$/.test(v.trim()) && v.length <= 1024 ? v.trim() : undefined;
}

export function validLastModified(v: string | undefined): string | undefined {
  return v !== undefined && v.length <= 64 && !Number.isNaN(Date.parse(v)) ? v : undefined;
}

function splitItems(fields: Record<string, unknown>): Pick<ResultRecord, 'fields' | 'items'> {
  const { items, ...rest } = fields;
  if (Array.isArray(items) && items.every((i) => i !== null && typeof i === 'object' && !Array.isArray(i)))
    return { fields: rest, items: items as Record<string, unknown>[] };
  return { fields };
}

/** No body was sent, so the previous content hash and fields stand. */
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
