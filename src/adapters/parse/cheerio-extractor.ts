// cheerio/slim: htmlparser2, never parse5 (docs/performance.md); less spec-exact on broken
// markup, which selector extraction does not mind.
import { type CheerioAPI, load } from 'cheerio/slim';
import { parseDocument } from 'htmlparser2';
import { HtmlTooDeepError, InvalidArgumentError } from '../../core/errors.js';
import { htmlNestingDepth, MAX_HTML_DEPTH } from '../../core/html-depth.js';
import type { ExtractionRules } from '../../core/rules.js';
import type { ExtractedLink, ExtractInput, Extraction, Extractor } from '../../ports/extractor.js';
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
import { StreamingExtractor } from './streaming-extractor.js';
import { queryEncodingOf } from './url-encoding.js';

export { parseNumber } from './field-values.js';

export interface CheerioExtractorOptions {
  /** 'auto': a streaming pass without a DOM when every selector is simple (same output). @default 'auto' */
  readonly streaming?: 'auto' | 'never';
}

/** Non-HTML bodies yield nothing: CSS selectors over XML would be a surprising semantics. */
export class CheerioExtractor implements Extractor {
  readonly #fields: readonly CompiledField[];
  readonly #links: readonly LinkSource[];
  readonly #streaming: StreamingExtractor | undefined;

  constructor(rules: ExtractionRules, options: CheerioExtractorOptions = {}) {
    this.#fields = Object.entries(rules.fields).map(([name, rule]) => {
      checkSelector(rule.selector, `field "${name}"`);
      return compileField(name, rule);
    });
    const sources = linkSources(rules);
    for (const s of sources) checkSelector(s.selector, 'follow rule');
    this.#links = sources;
    this.#streaming =
      options.streaming !== 'never' && StreamingExtractor.supports(rules)
        ? new StreamingExtractor(rules)
        : undefined;
  }

  get streaming(): boolean {
    return this.#streaming !== undefined;
  }

  extract(input: ExtractInput): Extraction {
    if (this.#streaming) return this.#streaming.extract(input);
    if (!isHtmlType(input.contentType)) return { fields: {}, links: [], errors: [] };
    // A DOM of a page nested thousands deep takes minutes to build: pre-scan it, in linear time.
    if (htmlNestingDepth(input.body) > MAX_HTML_DEPTH) {
      throw new HtmlTooDeepError(`HTML nested deeper than ${MAX_HTML_DEPTH}`);
    }
    const doc = decodeHtml(input.body, input.contentTypeHeader);
    const $ = load(parseDocument(doc.text, { Tokenizer: FastTokenizer }));
    const errors: string[] = [];
    const fields: Record<string, unknown> = {};
    for (const f of this.#fields) fields[f.name] = extractField($, f, errors);
    const meta = new PageMeta(input.robotsNames);
    for (const el of $('meta[name], link[rel]').toArray()) if ('attribs' in el) meta.tag(el.name, el.attribs);
    const links = this.#extractLinks($, input.url, queryEncodingOf(doc.encoding));
    return {
      fields,
      links,
      errors,
      encoding: doc.encoding,
      ...(doc.fallback ? { encodingFallback: true } : {}),
      ...meta.result(input.url, $('base[href]').first().attr('href')),
    };
  }

  #extractLinks($: CheerioAPI, pageUrl: string, queryEncoding: string | undefined): ExtractedLink[] {
    if (this.#links.length === 0) return [];
    const base = documentBase(pageUrl, $('base[href]').first().attr('href'));
    if (base === undefined) return [];
    const raws = this.#links.map((src) => {
      const out: string[] = [];
      for (const el of $(src.selector).toArray()) {
        const raw = 'attribs' in el ? el.attribs[src.attr] : undefined;
        if (raw !== undefined) out.push(raw);
      }
      return out;
    });
    return collectLinks(this.#links, raws, base, queryEncoding);
  }
}

/** cheerio compiles selectors lazily; probing an empty document surfaces bad syntax at construction. */
const probe = load('');
function checkSelector(selector: string, what: string): void {
  try {
    probe(selector);
  } catch (err) {
    throw new InvalidArgumentError(`${what}: invalid selector ${JSON.stringify(selector)}`, { cause: err });
  }
}

function extractField($: CheerioAPI, f: CompiledField, errors: string[]): unknown {
  const { rule } = f;
  const matches = $(rule.selector);
  const read = (el: ReturnType<CheerioAPI>) => (rule.attr === undefined ? el.text() : el.attr(rule.attr));
  const raws = rule.all
    ? matches.toArray().map((el) => read($(el)))
    : matches.length === 0
      ? []
      : [read(matches.first())];
  return fieldValue(f, raws, errors);
}
