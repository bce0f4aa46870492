/**
 * Small pure pieces of an HTTP exchange the fetcher reads: the request URL it accepts (http
 * and https, no fragment), response header values, and the media type of a Content-Type.
 */
import type { Dispatcher } from 'undici';
import { FetchError } from '../../core/errors.js';

export function parseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (err) {
    throw new FetchError(`invalid URL ${JSON.stringify(raw)}`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(`unsupported scheme ${url.protocol} in ${raw}`);
  }
  url.hash = '';
  return url;
}

export function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export function flattenHeaders(raw: Dispatcher.ResponseData['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';', 1)[0]!.trim().toLowerCase();
}
