import { Parser } from 'htmlparser2';

export interface SitemapEntry {
  readonly loc: string;
  /** Epoch ms of <lastmod>, when present and parseable. */
  readonly lastmod?: number;
}

export interface SitemapDocument {
  /** urlset lists pages; index lists further sitemaps; text is one URL per line. */
  readonly kind: 'urlset' | 'index' | 'text' | 'unknown';
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

/**
 * Parses a sitemap (urlset or sitemapindex XML, or the plain-text form) without building a
 * tree, so a 50 MB sitemap costs its entries, not a DOM. Namespace prefixes are ignored and
 * entities decoded (`&amp;` in query strings is the common case). Never throws on input.
 */
export function parseSitemap(text: string, maxEntries = SITEMAP_MAX_ENTRIES): SitemapDocument {
  const start = text.trimStart();
  if (!start.startsWith('<')) return parseTextSitemap(start, maxEntries);

  let kind: SitemapDocument['kind'] = 'unknown';
  const entries: SitemapEntry[] = [];
  let truncated = false;
  let inEntry = false;
  let field: 'loc' | 'lastmod' | undefined;
  let loc = '';
  let lastmod = '';
  const local = (name: string) => name.slice(name.indexOf(':') + 1).toLowerCase();

  const parser = new Parser(
    {
      onopentagname(raw) {
        const name = local(raw);
        if (kind === 'unknown' && (name === 'urlset' || name === 'sitemapindex')) {
          kind = name === 'urlset' ? 'urlset' : 'index';
        } else if ((name === 'url' && kind === 'urlset') || (name === 'sitemap' && kind === 'index')) {
          inEntry = true;
          loc = '';
          lastmod = '';
        } else if (inEntry && (name === 'loc' || name === 'lastmod')) {
          field = name;
        }
      },
      ontext(data) {
        if (field === 'loc') loc += data;
        else if (field === 'lastmod') lastmod += data;
      },
      onclosetag(raw) {
        const name = local(raw);
        if (name === 'loc' || name === 'lastmod') {
          field = undefined;
        } else if (inEntry && (name === 'url' || name === 'sitemap')) {
          inEntry = false;
          const l = loc.trim();
          if (l === '') return;
          if (entries.length >= maxEntries) {
            truncated = true;
            parser.pause();
            return;
          }
          const m = lastmod === '' ? undefined : parseLastmod(lastmod);
          entries.push(m === undefined ? { loc: l } : { loc: l, lastmod: m });
        }
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
