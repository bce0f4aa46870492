/** So that recrawl tests meet a server that answers conditional requests as RFC 9110 says. */
import type { IncomingMessage } from 'node:http';
import { hash } from './demo-hash.js';

/** Validators of a page version: a strong ETag and a Last-Modified one hour per epoch after 2026-01-01. */
export function validators(
  i: number,
  version: number,
  o: { readonly seed: number; readonly pages: number },
): { etag: string; lastModified: string } {
  return {
    etag: `"p${i}-v${version}-${hash(o.seed, o.pages).toString(36)}"`,
    lastModified: new Date(Date.UTC(2026, 0, 1) + version * 3_600_000).toUTCString(),
  };
}

/** RFC 9110 §13.1.1-2: If-None-Match (weak comparison) decides when present, else If-Modified-Since. */
export function notModified(req: IncomingMessage, etag: string, lastModified: string): boolean {
  const inm = req.headers['if-none-match'];
  if (inm !== undefined) {
    if (inm.trim() === '*') return true;
    const strip = (t: string) => t.trim().replace(/^W\//, '');
    return inm.split(',').some((t) => strip(t) === strip(etag));
  }
  const ims = req.headers['if-modified-since'];
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  return !Number.isNaN(since) && Date.parse(lastModified) <= since;
}
