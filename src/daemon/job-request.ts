import { ByContentTypeExtractor } from '../adapters/parse/by-content-type.js';
import { CheerioExtractor } from '../adapters/parse/cheerio-extractor.js';
import { JsonExtractor } from '../adapters/parse/json-extractor.js';
import type { JobConfig } from '../config/config.js';
import { DEFAULT_EXTRACTION, type ExtractionRules } from '../core/rules.js';
import type { Extractor } from '../ports/extractor.js';

export interface JobRequest {
  readonly method: string;
  /** Lower-case names. Values may be secrets: never log, label or store them. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** `jarSeeded`: the job's cookie jar holds request.cookies, so they are not a header of their own. */
export function compileRequest(request: JobConfig['request'], jarSeeded = false): JobRequest {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(request.headers)) headers[k.toLowerCase()] = v;
  const cookies = jarSeeded ? [] : Object.entries(request.cookies).map(([k, v]) => `${k}=${v}`);
  if (cookies.length > 0) {
    headers.cookie = headers.cookie ? `${headers.cookie}; ${cookies.join('; ')}` : cookies.join('; ');
  }
  let body: string | undefined;
  if (typeof request.body === 'string') body = request.body;
  else if (request.body !== undefined) {
    body = JSON.stringify(request.body);
    headers['content-type'] ??= 'application/json';
  }
  return { method: request.method, headers, ...(body !== undefined ? { body } : {}) };
}

/**
 * JSON rules for `type: json` jobs whatever the response says (APIs often answer text/plain);
 * HTML jobs send JSON responses to an extractor without rules rather than parse them as markup.
 */
export function compileExtractor(extract: JobConfig['extract']): Extractor {
  if (extract?.type === 'json') {
    return new JsonExtractor({
      ...(extract.fields ? { fields: extract.fields } : {}),
      ...(extract.items !== undefined ? { items: extract.items } : {}),
      follow: extract.follow,
    });
  }
  const rules: ExtractionRules = extract
    ? {
        fields: extract.fields ?? DEFAULT_EXTRACTION.fields,
        follow: extract.follow,
        followAllLinks: extract.followAllLinks,
      }
    : DEFAULT_EXTRACTION;
  return new ByContentTypeExtractor(new CheerioExtractor(rules), new JsonExtractor());
}
