/**
 * Small pure pieces of an HTTP exchange the fetcher reads: the request URL it accepts (http
 * and https, no fragment) and its request target, response header values, and the media type
 * of a Content-Type.
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

/**
 * The request target (origin-form, RFC 9112 §3.2.1) of an http(s) URL: its serialisation from
 * the path to before the fragment, as a browser sends it. Not `pathname + search`: `search` is
 * '' for an empty query, so `/a?` would go out as `/a`, another URL to the server (a signed or
 * cached URL, a server that reads the bare `?`). The path of a special URL is never empty and
 * its authority cannot hold a `/` or `#` (userinfo escapes them), so the first `/` after
 * `scheme://` starts the path and the first `#` the fragment.
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
