/** Extraction and scope rules, as the config gives them (already validated). */

export interface FieldRule {
  /** CSS selector; the first match is used unless `all`. */
  readonly selector: string;
  /** Read this attribute instead of the element's text. */
  readonly attr?: string;
  /** Collect every match into an array. @default false */
  readonly all?: boolean;
  /** Applied to the value; the first capture group if it has one, else the whole match. */
  readonly regex?: string;
  /** 'number' parses the value as a number after removing everything but digits, '.', '-' and ','. @default 'string' */
  readonly type?: 'string' | 'number';
  /** A missing value is reported as an extraction error. @default false */
  readonly required?: boolean;
}

export interface FollowRule {
  /** CSS selector of elements carrying links. @default 'a[href]' */
  readonly selector: string;
  /** @default 'href' */
  readonly attr?: string;
  /** Priority given to the links found (lower is sooner). */
  readonly priority: number;
  /** Links found by this rule are followed only from pages at depth < maxDepth. */
  readonly maxDepth?: number;
}

/**
 * The elements whose link a browser follows or loads, with the attribute that holds it:
 * `<a href>`, `<area href>` (image maps), `<iframe src>` and `<frame src>` (a browser loads
 * frames; wget follows them).
 */
export const LINK_TAGS = Object.freeze({ a: 'href', area: 'href', iframe: 'src', frame: 'src' } as const);
export type LinkTag = keyof typeof LINK_TAGS;
/** followAllLinks.tags by default: every tag of LINK_TAGS. */
export const DEFAULT_LINK_TAGS: readonly LinkTag[] = Object.freeze(Object.keys(LINK_TAGS) as LinkTag[]);

export interface FollowAllLinks {
  readonly priority: number;
  /** Which elements' links are followed. @default DEFAULT_LINK_TAGS (all of LINK_TAGS) */
  readonly tags?: readonly LinkTag[];
}

export interface ExtractionRules {
  readonly fields: Readonly<Record<string, FieldRule>>;
  readonly follow: readonly FollowRule[];
  /**
   * Also follow every link of the page (the elements of `tags`) with this priority; false to
   * follow only `follow` rules.
   */
  readonly followAllLinks: FollowAllLinks | false;
}

export interface ScopeRules {
  /** Hosts crawled: exact hostnames, or '*.example.com' for subdomains (and example.com itself). */
  readonly hosts: readonly string[];
  /** If non-empty, a URL must match one of these regexes (against the whole normalised URL). */
  readonly include: readonly RegExp[];
  /** A URL matching any of these is out of scope. */
  readonly exclude: readonly RegExp[];
  /** Links are followed from pages at depth < maxDepth; seeds are depth 0. */
  readonly maxDepth: number;
  /**
   * Hosts (URL.host) the job's seeds redirected to, added as the redirects happen; present
   * only when the scope follows seed redirects (the config names no hosts).
   */
  readonly redirectHosts?: Set<string>;
}

export interface NormaliseOptions {
  /** Remove utm_*, gclid, fbclid and similar tracking parameters. @default true */
  readonly stripTracking: boolean;
  /** Sort query parameters so that ?a=1&b=2 and ?b=2&a=1 dedupe. @default true */
  readonly sortQuery: boolean;
  /**
   * Drop session ids (`?jsessionid=`, `;jsessionid=` in the path, PHPSESSID, ...:
   * core/traps/session-ids.ts) from the key; the config's `traps.sessionIds`. @default true
   */
  readonly stripSessionIds?: boolean;
  /**
   * Query parameters a host's pages were found not to depend on (lower-case names), dropped
   * from its keys as session ids are (core/traps/host-traps.ts). Set per crawl, not by config.
   */
  readonly ignoredParams?: (host: string) => ReadonlySet<string> | undefined;
}

export const DEFAULT_EXTRACTION: ExtractionRules = {
  fields: {
    title: { selector: 'title' },
    description: { selector: 'meta[name="description"]', attr: 'content' },
  },
  follow: [],
  followAllLinks: { priority: 10 },
};
