import { Parser } from 'htmlparser2';
import { ASCII_WHITESPACE, stripAsciiWhitespace } from './ascii-whitespace.js';

export interface SitemapEntry {
  readonly loc: string;
  readonly lastmod?: number;
  readonly alternates?: readonly string[];
}

export interface SitemapDocument {
  readonly kind: 'urlset' | 'index' | 'text' | 'rss' | 'atom' | 'unknown';
  readonly entries: readonly SitemapEntry[];
  readonly truncated: boolean;
}

/** The sitemaps.org limit per file. */
export const SITEMAP_MAX_ENTRIES = 50_000;

/** W3C datetime; what Date.parse rejects is no lastmod. */
export function parseLastmod(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{4}-\d\d(-\d\d)?([T ][\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

function parseRfc822(text: string): number | undefined {
  const t = text.trim();
  if (!/^([A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d\d:\d\d/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

const SITEMAP_NS = /^https?:\/\/www\.(sitemaps\.org\/schemas\/sitemap|google\.com\/schemas\/sitemap)\//i;
const XHTML_NS = 'http://www.w3.org/1999/xhtml';

interface Element {
  readonly name: string;
  /** '' unprefixed, undefined for an undeclared prefix. */
  readonly ns: string | undefined;
  readonly prefixes: ReadonlyMap<string, string>;
}

/**
 * Streams a sitemap (XML, RSS, Atom or text): a 50 MB sitemap costs its entries, not a DOM. Only a direct child <loc>
 * is the location; locations are stripped of XML whitespace and FF only (not U+00A0). Never throws on input.
 */
export function parseSitemap(text: string, maxEntries = SITEMAP_MAX_ENTRIES): SitemapDocument {
  const start = stripLeading(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  if (!start.startsWith('<')) return parseTextSitemap(start, maxEntries);
  return new XmlSitemapReader(maxEntries).read(text);
}

const LEADING_WHITESPACE = new RegExp(`^${ASCII_WHITESPACE}+`);

function stripLeading(s: string): string {
  return s.replace(LEADING_WHITESPACE, '');
}

function own(e: Element | undefined): boolean {
  return e !== undefined && (e.ns === '' || (e.ns !== undefined && SITEMAP_NS.test(e.ns)));
}

class XmlSitemapReader {
  #kind: SitemapDocument['kind'] = 'unknown';
  readonly #entries: SitemapEntry[] = [];
  #truncated = false;
  readonly #stack: Element[] = [];
  #entryDepth = -1;
  #field: 'loc' | 'lastmod' | undefined;
  #fieldDepth = -1;
  #loc = '';
  #lastmod = '';
  #alternates: string[] = [];
  readonly #parser: Parser;

  readonly #maxEntries: number;

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
    this.#parser = new Parser(
      {
        onopentag: (raw, attribs) => this.#open(raw, attribs),
        ontext: (data) => {
          if (this.#field === 'loc') this.#loc += data;
          else if (this.#field === 'lastmod') this.#lastmod += data;
        },
        onclosetag: () => this.#close(),
      },
      { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
    );
  }

  read(text: string): SitemapDocument {
    this.#parser.write(text);
    if (!this.#truncated) this.#parser.end();
    return { kind: this.#kind, entries: this.#entries, truncated: this.#truncated };
  }

  #entryName(): string {
    const kind = this.#kind;
    return kind === 'urlset' ? 'url' : kind === 'index' ? 'sitemap' : kind === 'rss' ? 'item' : 'entry';
  }

  #open(raw: string, attribs: Record<string, string>): void {
    const parent = this.#stack[this.#stack.length - 1];
    const prefixes = new Map(parent?.prefixes ?? []);
    for (const [k, v] of Object.entries(attribs)) {
      if (k.toLowerCase().startsWith('xmlns:')) prefixes.set(k.slice(6).toLowerCase(), v);
    }
    const colon = raw.indexOf(':');
    const name = raw.slice(colon + 1).toLowerCase();
    const ns = colon < 0 ? '' : prefixes.get(raw.slice(0, colon).toLowerCase());
    const el: Element = { name, ns, prefixes };
    this.#stack.push(el);
    const depth = this.#stack.length - 1;
    if (depth === 0) {
      if (own(el) && name === 'urlset') this.#kind = 'urlset';
      else if (own(el) && name === 'sitemapindex') this.#kind = 'index';
      else if (colon < 0 && name === 'rss') this.#kind = 'rss';
      else if (colon < 0 && name === 'feed') this.#kind = 'atom';
      return;
    }
    if (this.#kind === 'unknown') return;
    // urlset/url, sitemapindex/sitemap, feed/entry: depth 1; rss/channel/item: depth 2.
    const wantDepth = this.#kind === 'rss' ? 2 : 1;
    if (this.#entryDepth < 0 && depth === wantDepth && own(el) && name === this.#entryName()) {
      this.#entryDepth = depth;
      this.#loc = '';
      this.#lastmod = '';
      this.#alternates = [];
      return;
    }
    if (this.#entryDepth < 0 || depth !== this.#entryDepth + 1) return;
    this.#openEntryChild(el, attribs, depth);
  }

  #openEntryChild(el: Element, attribs: Record<string, string>, depth: number): void {
    const { name, ns } = el;
    const kind = this.#kind;
    if (kind === 'atom') {
      if (own(el) && name === 'link' && this.#loc === '') {
        const rel = stripAsciiWhitespace(attribs.rel ?? 'alternate').toLowerCase();
        if (rel === 'alternate' && attribs.href !== undefined) this.#loc = attribs.href;
      } else if (own(el) && name === 'updated') {
        this.#field = 'lastmod';
        this.#fieldDepth = depth;
      }
      return;
    }
    if (kind === 'urlset' && name === 'link' && ns === XHTML_NS) {
      if (stripAsciiWhitespace(attribs.rel ?? '').toLowerCase() === 'alternate' && attribs.href)
        this.#alternates.push(stripAsciiWhitespace(attribs.href));
      return;
    }
    if (!own(el)) return;
    if (kind === 'rss' ? name === 'link' : name === 'loc') {
      this.#field = 'loc';
      this.#fieldDepth = depth;
    } else if (kind === 'rss' ? name === 'pubdate' : name === 'lastmod') {
      this.#field = 'lastmod';
      this.#fieldDepth = depth;
    }
  }

  #close(): void {
    const depth = this.#stack.length - 1;
    this.#stack.pop();
    if (depth === this.#fieldDepth) {
      this.#field = undefined;
      this.#fieldDepth = -1;
    }
    if (depth !== this.#entryDepth) return;
    this.#entryDepth = -1;
    const l = stripAsciiWhitespace(this.#loc);
    if (l === '') return;
    if (this.#entries.length >= this.#maxEntries) {
      this.#truncated = true;
      this.#parser.pause();
      return;
    }
    const lastmod = this.#lastmod;
    const m =
      lastmod === ''
        ? undefined
        : (parseLastmod(lastmod) ?? (this.#kind === 'rss' ? parseRfc822(lastmod) : undefined));
    const alternates = this.#alternates;
    this.#entries.push({
      loc: l,
      ...(m !== undefined ? { lastmod: m } : {}),
      ...(alternates.length > 0 ? { alternates } : {}),
    });
  }
}

function parseTextSitemap(text: string, maxEntries: number): SitemapDocument {
  const entries: SitemapEntry[] = [];
  let truncated = false;
  for (const line of text.split(/\r?\n/)) {
    const l = stripAsciiWhitespace(line);
    if (!/^https?:\/\//i.test(l)) continue;
    if (entries.length >= maxEntries) {
      truncated = true;
      break;
    }
    entries.push({ loc: l });
  }
  return { kind: entries.length > 0 ? 'text' : 'unknown', entries, truncated };
}

/** robots.txt `Sitemap:` lines; whitespace is C's isspace (Google's parser), so U+00A0 names no URL. */
const SITEMAP_LINE = /^[\t\n\v\f\r ]*sitemap[\t\n\v\f\r ]*:[\t\n\v\f\r ]*([^\t\n\v\f\r ]+)/i;

export function robotsSitemaps(robotsTxt: string): string[] {
  const out: string[] = [];
  for (const line of robotsTxt.split(/\r?\n/)) {
    const m = SITEMAP_LINE.exec(line);
    if (m?.[1]) out.push(m[1]);
  }
  return out;
}
