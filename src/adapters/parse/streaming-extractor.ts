/**
 * Extraction in one htmlparser2 pass without a DOM, for simple selectors (simple-selector.ts):
 * the DOM cost as much as tokenizing and made most of the garbage. Same output as the cheerio
 * extractor (test/unit/streaming-extractor.test.ts): same parser, same open/close events.
 */
import { Parser } from 'htmlparser2';
import { HtmlTooDeepError } from '../../core/errors.js';
import { MAX_HTML_DEPTH } from '../../core/html-depth.js';
import type { ExtractionRules } from '../../core/rules.js';
import type { ExtractInput, Extraction, Extractor } from '../../ports/extractor.js';
import { decodeHtml } from './charset.js';
import { FastTokenizer } from './fast-tokenizer.js';
import {
  type CompiledField,
  collectLinks,
  compileField,
  documentBase,
  fieldValue,
  isHtmlType,
  type LinkSource,
  linkSources,
} from './field-values.js';
import { PageMeta } from './page-meta.js';
import { type Attribs, parseSimpleSelector, type SimpleSelector } from './simple-selector.js';
import { queryEncodingOf } from './url-encoding.js';

/** cheerio's attr() answers these differently from the raw attribute (see its getAttr). */
const SPECIAL_ATTR =
  /^(?:autofocus|autoplay|async|checked|controls|defer|disabled|hidden|loop|multiple|open|readonly|required|scoped|selected|value)$/i;

interface FieldMatcher {
  readonly field: CompiledField;
  readonly selector: SimpleSelector;
  readonly attr: string | undefined;
}

interface LinkMatcher {
  readonly source: LinkSource;
  readonly selector: SimpleSelector;
}

function compile(
  rules: ExtractionRules,
): { fields: FieldMatcher[]; links: LinkMatcher[]; sources: LinkSource[] } | undefined {
  const fields: FieldMatcher[] = [];
  for (const [name, rule] of Object.entries(rules.fields)) {
    const selector = parseSimpleSelector(rule.selector);
    if (!selector || (rule.attr !== undefined && SPECIAL_ATTR.test(rule.attr))) return undefined;
    fields.push({ field: compileField(name, rule), selector, attr: rule.attr });
  }
  const sources = linkSources(rules);
  const links: LinkMatcher[] = [];
  for (const source of sources) {
    const selector = parseSimpleSelector(source.selector);
    if (!selector) return undefined;
    links.push({ source, selector });
  }
  return { fields, links, sources };
}

/** One field match whose text is still being collected (its element is open). */
interface TextCapture {
  text: string;
  depth: number;
}

class Pass {
  /** Raw values per field: text captures (filled as text arrives) or attribute values. */
  readonly values: (TextCapture | string | undefined)[][];
  readonly links: string[][];
  baseHref: string | undefined;
  depth = 0;
  open: TextCapture[] = [];

  constructor(fields: number, sources: number) {
    this.values = Array.from({ length: fields }, () => []);
    this.links = Array.from({ length: sources }, () => []);
  }
}

export class StreamingExtractor implements Extractor {
  readonly #fields: readonly FieldMatcher[];
  readonly #links: readonly LinkMatcher[];
  readonly #sources: readonly LinkSource[];
  /** Tags any selector can match (undefined: any tag); other open tags skip matching. */
  readonly #tags: ReadonlySet<string> | undefined;

  static supports(rules: ExtractionRules): boolean {
    return compile(rules) !== undefined;
  }

  constructor(rules: ExtractionRules) {
    const compiled = compile(rules);
    if (!compiled) throw new TypeError('StreamingExtractor: rules need a DOM (check supports() first)');
    this.#fields = compiled.fields;
    this.#links = compiled.links;
    this.#sources = compiled.sources;
    const selectors = [...compiled.fields, ...compiled.links].map((m) => m.selector);
    this.#tags = selectors.some((s) => s.tags === undefined)
      ? undefined
      : new Set(selectors.flatMap((s) => [...(s.tags ?? [])]));
  }

  extract(input: ExtractInput): Extraction {
    if (!isHtmlType(input.contentType)) return { fields: {}, links: [], errors: [] };
    const pass = new Pass(this.#fields.length, this.#links.length);
    const meta = new PageMeta(input.robotsNames);
    const tags = this.#tags;
    const parser = new Parser(
      {
        onopentag: (name: string, attribs: Attribs) => {
          // The depth guard as a counter here, instead of a pre-scan of every body.
          if (++pass.depth > MAX_HTML_DEPTH)
            throw new HtmlTooDeepError(`HTML nested deeper than ${MAX_HTML_DEPTH}`);
          if (name === 'base' && pass.baseHref === undefined && Object.hasOwn(attribs, 'href')) {
            pass.baseHref = attribs.href;
          }
          if (name === 'meta' || name === 'link') meta.tag(name, attribs);
          if (tags !== undefined && !tags.has(name)) return;
          this.#match(pass, name, attribs);
        },
        ontext: (data: string) => {
          for (const c of pass.open) c.text += data;
        },
        onclosetag: () => {
          const open = pass.open;
          while (open.length > 0 && (open[open.length - 1] as TextCapture).depth === pass.depth) open.pop();
          pass.depth--;
        },
      },
      { Tokenizer: FastTokenizer },
    );
    const doc = decodeHtml(input.body, input.contentTypeHeader);
    parser.end(doc.text);
    const result = this.#result(pass, input.url, queryEncodingOf(doc.encoding));
    return {
      ...result,
      encoding: doc.encoding,
      ...(doc.fallback ? { encodingFallback: true } : {}),
      ...meta.result(input.url, pass.baseHref),
    };
  }

  #match(pass: Pass, name: string, attribs: Attribs): void {
    for (let i = 0; i < this.#fields.length; i++) {
      const m = this.#fields[i] as FieldMatcher;
      if (!m.selector.matches(name, attribs)) continue;
      const values = pass.values[i] as (TextCapture | string | undefined)[];
      // Only the first match of a single-value field is read.
      if (!m.field.rule.all && values.length > 0) continue;
      if (m.attr === undefined) {
        const capture: TextCapture = { text: '', depth: pass.depth };
        values.push(capture);
        pass.open.push(capture);
      } else {
        values.push(Object.hasOwn(attribs, m.attr) ? attribs[m.attr] : undefined);
      }
    }
    for (let i = 0; i < this.#links.length; i++) {
      const m = this.#links[i] as LinkMatcher;
      if (!m.selector.matches(name, attribs)) continue;
      const raw = attribs[m.source.attr];
      if (raw !== undefined) (pass.links[i] as string[]).push(raw);
    }
  }

  #result(pass: Pass, pageUrl: string, queryEncoding: string | undefined): Extraction {
    const errors: string[] = [];
    const fields: Record<string, unknown> = {};
    this.#fields.forEach((m, i) => {
      const raws = (pass.values[i] ?? []).map((v) => (typeof v === 'object' ? v.text : v));
      fields[m.field.name] = fieldValue(m.field, raws, errors);
    });
    if (this.#sources.length === 0) return { fields, links: [], errors };
    const base = documentBase(pageUrl, pass.baseHref);
    const links = base === undefined ? [] : collectLinks(this.#sources, pass.links, base, queryEncoding);
    return { fields, links, errors };
  }
}
