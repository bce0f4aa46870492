/**
 * Fields, items and follow links from JSON bodies (paths: json-path.ts). A URL template's
 * placeholder with no value (the last page of a cursor) yields no link.
 */
import type { ExtractedLink, ExtractInput, Extraction, Extractor } from '../../ports/extractor.js';
import { evaluate, type JsonPath, parseJsonPath, select } from './json-path.js';

export interface JsonFieldRule {
  readonly path: string;
  /** 'raw' keeps the JSON value; 'string' and 'number' convert scalars. @default 'raw' */
  readonly type?: 'raw' | 'string' | 'number';
  /** A missing value is reported as an extraction error. @default false */
  readonly required?: boolean;
}

export interface JsonFollowRule {
  /** One of path or url. */
  readonly path?: string;
  /** URL template with `{path}` placeholders, e.g. `/items?cursor={$.next_cursor}`. */
  readonly url?: string;
  readonly priority: number;
  readonly maxDepth?: number;
}

export interface JsonExtractionRules {
  readonly fields?: Readonly<Record<string, JsonFieldRule | string>>;
  readonly items?: string;
  readonly follow?: readonly JsonFollowRule[];
}

/** Links a single template may produce (a wildcard placeholder yields one link per value). */
const MAX_TEMPLATE_LINKS = 10_000;

const JSON_TYPE = /^(application|text)\/(json|([a-z0-9.+-]+\+json))$/;

export function isJsonContentType(contentType: string): boolean {
  return JSON_TYPE.test(contentType);
}

interface CompiledField {
  readonly name: string;
  readonly path: JsonPath;
  readonly type: 'raw' | 'string' | 'number';
  readonly required: boolean;
}

type CompiledFollow =
  | { readonly kind: 'path'; readonly path: JsonPath; readonly priority: number; readonly maxDepth?: number }
  | {
      readonly kind: 'template';
      readonly parts: readonly (string | JsonPath)[];
      readonly priority: number;
      readonly maxDepth?: number;
    };

export class JsonExtractor implements Extractor {
  readonly #fields: readonly CompiledField[] | undefined;
  readonly #items: JsonPath | undefined;
  readonly #follow: readonly CompiledFollow[];

  /** A bad path fails at config time, not per page. */
  constructor(rules: JsonExtractionRules = {}) {
    this.#fields = rules.fields
      ? Object.entries(rules.fields).map(([name, r]) => {
          const rule = typeof r === 'string' ? { path: r } : r;
          return {
            name,
            path: parseJsonPath(rule.path),
            type: rule.type ?? 'raw',
            required: rule.required ?? false,
          };
        })
      : undefined;
    this.#items = rules.items !== undefined ? parseJsonPath(rules.items) : undefined;
    this.#follow = (rules.follow ?? []).map(compileFollow);
  }

  /** JSON is UTF-8 whatever the Content-Type says (RFC 8259 §8.1); a BOM is tolerated. */
  extract(input: ExtractInput): Extraction {
    let doc: unknown;
    try {
      doc = JSON.parse(input.body.toString('utf8').replace(/^\uFEFF/, ''));
    } catch (err) {
      return {
        fields: {},
        links: [],
        errors: [`invalid JSON: ${(err as Error).message}`],
        encoding: 'utf-8',
      };
    }
    const errors: string[] = [];
    const links = this.#links(doc, input.url, errors);
    if (!this.#items) return { fields: this.#fieldsOf(doc, errors, ''), links, errors, encoding: 'utf-8' };
    const found = evaluate(this.#items, doc);
    const list = found.length === 1 && Array.isArray(found[0]) ? found[0] : found;
    const items = list.map((item, i) => this.#fieldsOf(item, errors, `items[${i}].`));
    return { fields: {}, items, links, errors, encoding: 'utf-8' };
  }

  #fieldsOf(doc: unknown, errors: string[], prefix: string): Record<string, unknown> {
    if (!this.#fields) {
      if (!this.#items) return {};
      return doc !== null && typeof doc === 'object' && !Array.isArray(doc)
        ? (doc as Record<string, unknown>)
        : { value: doc };
    }
    const out: Record<string, unknown> = {};
    for (const f of this.#fields) {
      const value = convert(select(f.path, doc), f.type);
      if (value === undefined || (f.path.multi && (value as unknown[]).length === 0)) {
        if (f.required) errors.push(`${prefix}${f.name}: no value at ${f.path.source}`);
        if (!f.path.multi) continue;
      }
      out[f.name] = value;
    }
    return out;
  }

  #links(doc: unknown, pageUrl: string, errors: string[]): ExtractedLink[] {
    const links: ExtractedLink[] = [];
    for (const rule of this.#follow) {
      const extra = rule.maxDepth !== undefined ? { maxDepth: rule.maxDepth } : {};
      const targets =
        rule.kind === 'path' ? urlValues(evaluate(rule.path, doc)) : fillTemplate(rule.parts, doc);
      for (const t of targets) {
        try {
          links.push({ url: new URL(t, pageUrl).href, priority: rule.priority, ...extra });
        } catch {
          errors.push(`follow: not a URL: ${JSON.stringify(t).slice(0, 200)}`);
        }
      }
    }
    return links;
  }
}

function compileFollow(rule: JsonFollowRule): CompiledFollow {
  const extra = rule.maxDepth !== undefined ? { maxDepth: rule.maxDepth } : {};
  if (rule.path !== undefined) {
    return { kind: 'path', path: parseJsonPath(rule.path), priority: rule.priority, ...extra };
  }
  const template = rule.url ?? '';
  const parts: (string | JsonPath)[] = [];
  let last = 0;
  for (const m of template.matchAll(/\{([^{}]+)\}/g)) {
    parts.push(template.slice(last, m.index));
    parts.push(parseJsonPath(m[1]!));
    last = m.index + m[0].length;
  }
  parts.push(template.slice(last));
  return { kind: 'template', parts, priority: rule.priority, ...extra };
}

function scalarString(v: unknown): string | undefined {
  if (typeof v === 'string') return v === '' ? undefined : v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'boolean') return String(v);
  return undefined;
}

function urlValues(matches: unknown[]): string[] {
  const out: string[] = [];
  for (const m of matches.flat()) {
    const s = scalarString(m);
    if (s !== undefined) out.push(s);
  }
  return out;
}

/** Every combination of placeholder values; none when a placeholder has no value. */
function fillTemplate(parts: readonly (string | JsonPath)[], doc: unknown): string[] {
  let urls = [''];
  for (const part of parts) {
    if (typeof part === 'string') {
      urls = urls.map((u) => u + part);
      continue;
    }
    const values = urlValues(evaluate(part, doc)).map(encodeURIComponent);
    if (values.length === 0) return [];
    const next: string[] = [];
    for (const u of urls) for (const v of values) if (next.length < MAX_TEMPLATE_LINKS) next.push(u + v);
    urls = next;
  }
  return urls;
}

function convert(value: unknown, type: 'raw' | 'string' | 'number'): unknown {
  if (type === 'raw' || value === undefined) return value;
  if (Array.isArray(value)) return value.map((v) => convert(v, type));
  if (type === 'string') {
    if (value === null) return undefined;
    return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
  if (typeof value === 'number') return value;
  if (typeof value === 'string') {
    const n = Number(value.replace(/[^0-9.eE+-]/g, ''));
    return value.trim() !== '' && Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}
