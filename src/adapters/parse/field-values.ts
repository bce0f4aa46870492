/** Shared by both HTML extractors, so they can differ only in which elements they find. */
import { stripAsciiWhitespace } from '../../core/ascii-whitespace.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { DEFAULT_LINK_TAGS, type ExtractionRules, type FieldRule, LINK_TAGS } from '../../core/rules.js';
import type { ExtractedLink } from '../../ports/extractor.js';
import { encodeQueryAs } from './url-encoding.js';

export interface CompiledField {
  readonly name: string;
  readonly rule: FieldRule;
  readonly regex: RegExp | undefined;
}

export interface LinkSource {
  readonly selector: string;
  readonly attr: string;
  readonly priority: number;
  readonly maxDepth: number | undefined;
}

export const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);

export function isHtmlType(contentType: string): boolean {
  return HTML_TYPES.has(contentType.split(';')[0]?.trim().toLowerCase() ?? '');
}

export function linkSources(rules: ExtractionRules): LinkSource[] {
  const sources: LinkSource[] = rules.follow.map((f) => ({
    selector: f.selector || 'a[href]',
    attr: f.attr ?? 'href',
    priority: f.priority,
    maxDepth: f.maxDepth,
  }));
  if (rules.followAllLinks) {
    const { priority, tags = DEFAULT_LINK_TAGS } = rules.followAllLinks;
    for (const tag of tags) {
      const attr = LINK_TAGS[tag];
      sources.push({ selector: `${tag}[${attr}]`, attr, priority, maxDepth: undefined });
    }
  }
  return sources;
}

export function compileField(name: string, rule: FieldRule): CompiledField {
  let regex: RegExp | undefined;
  if (rule.regex !== undefined) {
    try {
      regex = new RegExp(rule.regex);
    } catch (err) {
      throw new InvalidArgumentError(`field "${name}": invalid regex ${JSON.stringify(rule.regex)}`, {
        cause: err,
      });
    }
  }
  return { name, rule, regex };
}

/** Text is trimmed with whitespace runs collapsed; '' counts as missing. */
export function cleanValue(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const v = raw.replace(/\s+/g, ' ').trim();
  return v === '' ? undefined : v;
}

export function fieldValue(
  f: CompiledField,
  raws: readonly (string | undefined)[],
  errors: string[],
): unknown {
  const { rule } = f;
  if (!rule.all) {
    const raw = raws.length === 0 ? undefined : cleanValue(raws[0]);
    const value = raw === undefined ? undefined : convert(raw, f, errors);
    if (value === undefined) {
      if (rule.required && raw === undefined) errors.push(`field "${f.name}": required value missing`);
      return null;
    }
    return value;
  }
  const values: unknown[] = [];
  for (const r of raws) {
    const raw = cleanValue(r);
    const value = raw === undefined ? undefined : convert(raw, f, errors);
    if (value !== undefined) values.push(value);
  }
  if (rule.required && values.length === 0) errors.push(`field "${f.name}": required value missing`);
  return values;
}

/** A failure goes to `errors` and yields undefined (-> null). */
function convert(raw: string, f: CompiledField, errors: string[]): string | number | undefined {
  let v = raw;
  if (f.regex) {
    const m = f.regex.exec(raw);
    const picked = m === null ? undefined : m.length > 1 ? m[1] : m[0];
    if (picked === undefined) {
      errors.push(`field "${f.name}": regex did not match ${JSON.stringify(clip(raw))}`);
      return undefined;
    }
    v = picked;
  }
  if (f.rule.type !== 'number') return v;
  const n = parseNumber(v);
  if (n === undefined) errors.push(`field "${f.name}": not a number ${JSON.stringify(clip(v))}`);
  return n;
}

/** '$1,234.50' -> 1234.5; ',' is a thousands separator (no decimal commas). */
export function parseNumber(s: string): number | undefined {
  const cleaned = s.replace(/[^0-9.,-]/g, '').replace(/,/g, '');
  if (!/^-?(\d+\.?\d*|\.\d+)$/.test(cleaned)) return undefined;
  const n = Number(cleaned);
  return Number.isFinite(n) ? n : undefined;
}

function clip(s: string): string {
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

export function documentBase(pageUrl: string, baseHref: string | undefined): URL | undefined {
  let page: URL;
  try {
    page = new URL(pageUrl);
  } catch {
    return undefined;
  }
  if (baseHref === undefined) return page;
  try {
    return new URL(stripAsciiWhitespace(baseHref), page);
  } catch {
    return page;
  }
}

/**
 * Only http(s): drops javascript:, mailto: and the rest in one check. Stripped of ASCII
 * whitespace only, as HTML does: a U+00A0 around it is part of the URL.
 */
export function resolveLink(raw: string, base: URL, queryEncoding?: string): string | undefined {
  const href = stripAsciiWhitespace(raw);
  // A bare '#frag' points back at this page, which is already being crawled.
  if (href === '' || href.startsWith('#')) return undefined;
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (queryEncoding !== undefined && url.search !== '') encodeQueryAs(url, href, queryEncoding);
  url.hash = '';
  return url.href;
}

/** First-seen order; a later source only lowers a URL's priority. */
export function collectLinks(
  sources: readonly LinkSource[],
  rawsPerSource: readonly (readonly string[])[],
  base: URL,
  queryEncoding?: string,
): ExtractedLink[] {
  const found = new Map<string, ExtractedLink>();
  sources.forEach((src, i) => {
    for (const raw of rawsPerSource[i] ?? []) {
      const url = resolveLink(raw, base, queryEncoding);
      if (url === undefined) continue;
      const prev = found.get(url);
      if (prev === undefined || isBetter(src, prev)) {
        const { priority, maxDepth } = src;
        found.set(url, maxDepth === undefined ? { url, priority } : { url, priority, maxDepth });
      }
    }
  });
  return [...found.values()];
}

/** Lower priority wins; on a tie the more permissive depth limit (none beats any). */
function isBetter(src: LinkSource, prev: ExtractedLink): boolean {
  if (src.priority !== prev.priority) return src.priority < prev.priority;
  if (prev.maxDepth === undefined) return false;
  return src.maxDepth === undefined || src.maxDepth > prev.maxDepth;
}
