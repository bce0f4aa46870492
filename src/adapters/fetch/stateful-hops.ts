/** What ties a hop to the previous one besides Location: cookies and a 2xx page's refresh. */
import { parseRefresh } from '../../core/refresh.js';
import type { FetchResponse } from '../../ports/fetcher.js';
import { HTML_TYPES } from '../parse/field-values.js';
import { findMetaRefresh } from '../parse/meta-refresh.js';
import type { Hop } from './redirects.js';

/** The job's own Cookie header (request.headers) first, then the jar's. */
export function withCookies(headers: Record<string, string>, jar: string): Record<string, string> {
  if (jar === '') return headers;
  const own = headers.cookie;
  return { ...headers, cookie: own ? `${own}; ${jar}` : jar };
}

/** undici gives one string per Set-Cookie line (an array when there are several). */
export function setCookieLines(v: string | string[] | undefined): readonly string[] {
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The Refresh header first, as in a browser; a refresh without a URL is no redirect. */
export function refreshTarget(hop: Hop, res: FetchResponse, maxDelaySeconds: number): URL | undefined {
  if (res.status < 200 || res.status > 299 || hop.method === 'HEAD') return undefined;
  const header = res.headers.refresh;
  const refresh =
    (header !== undefined ? parseRefresh(header) : undefined) ??
    (HTML_TYPES.has(res.contentType) ? findMetaRefresh(res.body, res.headers['content-type']) : undefined);
  if (refresh?.url === undefined || refresh.delaySeconds > maxDelaySeconds) return undefined;
  try {
    const target = new URL(refresh.url, hop.url);
    target.hash = '';
    return target;
  } catch {
    return undefined;
  }
}
