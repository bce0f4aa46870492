import { Parser } from 'htmlparser2';

export interface SitemapEntry {
  readonly loc: string;
  /** Epoch ms of <lastmod> (Atom <updated>, RSS <pubDate>), when present and parseable. */
  readonly lastmod?: number;
  /** `<xhtml:link rel="alternate" href>` of a `<url>`: other language versions of the page. */
  readonly alternates?: readonly string[];
}

export interface SitemapDocument {
  /**
   * urlset lists pages; index lists further sitemaps; text is one URL per line; rss and atom
   * are feeds whose items' links are pages, read as search engines read them.
   */
  readonly kind: 'urlset' | 'index' | 'text' | 'rss' | 'atom' | 'unknown';
  readonly entries: readonly SitemapEntry[];
  /** More entries than maxEntries were present; the rest were ignored. */
  readonly truncated: boolean;
}

/** The sitemaps.org limit per file; also our default cap. */
export const SITEMAP_MAX_ENTRIES = 50_000;

/**
 * W3C datetime as sitemaps use it (2024-05-01, 2024-05-01T10:00Z, with seconds and an
 * offset): Date.parse reads these; anything it rejects counts as no lastmod.
 */
export function parseLastmod(text: string): number | undefined {
  const t = text.trim();
  if (!/^\d{4}-\d\d(-\d\d)?([T ][\d:.]+(Z|[+-]\d\d:?\d\d)?)?$/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** RSS pubDate is RFC 822 (Sat, 07 Sep 2002 00:00:01 GMT); Date.parse reads it. */
function parseRfc822(text: string): number | undefined {
  const t = text.trim();
  if (!/^([A-Za-z]{3},\s*)?\d{1,2}\s+[A-Za-z]{3}\s+\d{2,4}\s+\d\d:\d\d/.test(t)) return undefined;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? ms : undefined;
}

/** Namespaces whose elements are the sitemap protocol's own (sitemaps.org, Google's older one). */
const SITEMAP_NS = /^https?:\/\/www\.(sitemaps\.org\/schemas\/sitemap|google\.com\/schemas\/sitemap)\//i;
const XHTML_NS = 'http://www.w3.org/1999/xhtml';

interface Element {
  /** Local name, lower case. */
  readonly name: string;
  /** Namespace URI of a prefixed name ('' unprefixed, undefined for an undeclared prefix). */
  readonly ns: string | undefined;
  readonly prefixes: ReadonlyMap<string, string>;
}

/**
 * Parses a sitemap (urlset or sitemapindex XML, an RSS 2.0 or Atom 1.0 feed, or the plain-text
 * form) without building a tree, so a 50 MB sitemap costs its entries, not a DOM. Only the
 * `<loc>` that is a direct child of `<url>` (or `<sitemap>`) is the location: the image, video
 * and news extensions, `xhtml:link` alternates and elements of unknown namespaces inside
 * `<url>` never change it (alternates are reported apart). Unprefixed elements are taken as the
 * sitemap's own whatever the default namespace (sitemaps with a wrong xmlns are common); a
 * prefixed one only when its prefix is bound to the sitemaps namespace. Entities are decoded
 * (`&amp;` in query strings is the common case) and locations trimmed. Never throws on input.
 */
export function parseSitemap(text: string, maxEntries = SITEMAP_MAX_ENTRIES): SitemapDocument {
  const start = text.trimStart();
  if (!start.startsWith('<')) return parseTextSitemap(start, maxEntries);

  let kind: SitemapDocument['kind'] = 'unknown';
  const entries: SitemapEntry[] = [];
  let truncated = false;
  const stack: Element[] = [];
  /** The entry being read (a <url>, <sitemap>, <item> or <entry>), at stack depth `entryDepth`. */
  let entryDepth = -1;
  let field: 'loc' | 'lastmod' | undefined;
  let fieldDepth = -1;
  let loc = '';
  let lastmod = '';
  let alternates: string[] = [];

  const own = (e: Element | undefined) =>
    e !== undefined && (e.ns === '' || (e.ns !== undefined && SITEMAP_NS.test(e.ns)));
  const entryName = () =>
    kind === 'urlset' ? 'url' : kind === 'index' ? 'sitemap' : kind === 'rss' ? 'item' : 'entry';

  const parser = new Parser(
    {
      onopentag(raw, attribs) {
        const parent = stack[stack.length - 1];
        const prefixes = new Map(parent?.prefixes ?? []);
        for (const [k, v] of Object.entries(attribs)) {
          if (k.toLowerCase().startsWith('xmlns:')) prefixes.set(k.slice(6).toLowerCase(), v);
        }
        const colon = raw.indexOf(':');
        const name = raw.slice(colon + 1).toLowerCase();
        const ns = colon < 0 ? '' : prefixes.get(raw.slice(0, colon).toLowerCase());
        const el: Element = { name, ns, prefixes };
        stack.push(el);
        const depth = stack.length - 1;
        if (depth === 0) {
          if (own(el) && name === 'urlset') kind = 'urlset';
          else if (own(el) && name === 'sitemapindex') kind = 'index';
          else if (colon < 0 && name === 'rss') kind = 'rss';
          else if (colon < 0 && name === 'feed') kind = 'atom';
          return;
        }
        if (kind === 'unknown') return;
        // urlset/url, sitemapindex/sitemap, feed/entry: depth 1; rss/channel/item: depth 2.
        const wantDepth = kind === 'rss' ? 2 : 1;
        if (entryDepth < 0 && depth === wantDepth && own(el) && name === entryName()) {
          entryDepth = depth;
          loc = '';
          lastmod = '';
          alternates = [];
          return;
        }
        if (entryDepth < 0 || depth !== entryDepth + 1) return;
        // A direct child of the entry.
        if (kind === 'atom') {
          if (own(el) && name === 'link' && loc === '') {
            const rel = (attribs.rel ?? 'alternate').trim().toLowerCase();
            if (rel === 'alternate' && attribs.href !== undefined) loc = attribs.href;
          } else if (own(el) && name === 'updated') {
            field = 'lastmod';
            fieldDepth = depth;
          }
          return;
        }
        if (kind === 'urlset' && name === 'link' && ns === XHTML_NS) {
          if ((attribs.rel ?? '').trim().toLowerCase() === 'alternate' && attribs.href)
            alternates.push(attribs.href.trim());
          return;
        }
        if (!own(el)) return;
        if (kind === 'rss' ? name === 'link' : name === 'loc') {
          field = 'loc';
          fieldDepth = depth;
        } else if (kind === 'rss' ? name === 'pubdate' : name === 'lastmod') {
          field = 'lastmod';
          fieldDepth = depth;
        }
      },
      ontext(data) {
        if (field === 'loc') loc += data;
        else if (field === 'lastmod') lastmod += data;
      },
      onclosetag() {
        const depth = stack.length - 1;
        stack.pop();
        if (depth === fieldDepth) {
          field = undefined;
          fieldDepth = -1;
        }
        if (depth !== entryDepth) return;
        entryDepth = -1;
        const l = loc.trim();
        if (l === '') return;
        if (entries.length >= maxEntries) {
          truncated = true;
          parser.pause();
          return;
        }
        const m =
          lastmod === ''
            ? undefined
            : (parseLastmod(lastmod) ?? (kind === 'rss' ? parseRfc822(lastmod) : undefined));
        entries.push({
          loc: l,
          ...(m !== undefined ? { lastmod: m } : {}),
          ...(alternates.length > 0 ? { alternates } : {}),
        });
      },
    },
    { xmlMode: true, decodeEntities: true, recognizeCDATA: true },
  );
  parser.write(text);
  if (!truncated) parser.end();
  return { kind, entries, truncated };
}

function parseTextSitemap(text: string, maxEntries: number): SitemapDocument {
  const entries: SitemapEntry[] = [];
  let truncated = false;
  for (const line of text.split(/\r?\n/)) {
    const l = line.trim();
    if (!/^https?:\/\//i.test(l)) continue;
    if (entries.length >= maxEntries) {
      truncated = true;
      break;
    }
    entries.push({ loc: l });
  }
  return { kind: entries.length > 0 ? 'text' : 'unknown', entries, truncated };
}

/** The `Sitemap:` lines of a robots.txt (case-insensitive field name, any position). */
export function robotsSitemaps(robotsTxt: string): string[] {
  const out: string[] = [];
  for (const line of robotsTxt.split(/\r?\n/)) {
    const m = /^\s*sitemap\s*:\s*(\S+)/i.exec(line);
    if (m?.[1]) out.push(m[1]);
  }
  return out;
}
