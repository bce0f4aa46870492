/** Pure pieces of an HTTP exchange: the URL accepted, its request target, header values, media type. */
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

/**
 * Origin-form (RFC 9112 §3.2.1) as a browser sends it: not `pathname + search`, which turns `/a?`
 * into `/a`. A special URL's authority holds no `/` or `#`, so the first of each bounds the path.
 */
export function requestTarget(url: URL): string {
  const href = url.href;
  const path = href.indexOf('/', url.protocol.length + 2);
  if (path < 0) return '/';
  const hash = href.indexOf('#', path);
  return href.slice(path, hash < 0 ? undefined : hash);
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
