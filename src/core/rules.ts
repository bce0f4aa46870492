export interface FieldRule {
  /** The first match is used unless `all`. */
  readonly selector: string;
  readonly attr?: string;
  /** @default false */
  readonly all?: boolean;
  /** The first capture group if it has one, else the whole match. */
  readonly regex?: string;
  /** 'number' keeps only digits, '.', '-' and ','. @default 'string' */
  readonly type?: 'string' | 'number';
  /** @default false */
  readonly required?: boolean;
}

export interface FollowRule {
  /** @default 'a[href]' */
  readonly selector: string;
  /** @default 'href' */
  readonly attr?: string;
  readonly priority: number;
  readonly maxDepth?: number;
}

/** Elements whose link a browser follows or loads (frames too, as wget does). */
export const LINK_TAGS = Object.freeze({ a: 'href', area: 'href', iframe: 'src', frame: 'src' } as const);
export type LinkTag = keyof typeof LINK_TAGS;
export const DEFAULT_LINK_TAGS: readonly LinkTag[] = Object.freeze(Object.keys(LINK_TAGS) as LinkTag[]);

export interface FollowAllLinks {
  readonly priority: number;
  /** @default DEFAULT_LINK_TAGS (all of LINK_TAGS) */
  readonly tags?: readonly LinkTag[];
}

export interface ExtractionRules {
  readonly fields: Readonly<Record<string, FieldRule>>;
  readonly follow: readonly FollowRule[];
  readonly followAllLinks: FollowAllLinks | false;
}

export interface ScopeRules {
  /** Exact hostnames, or '*.example.com' (apex included). */
  readonly hosts: readonly string[];
  /** Non-empty: a URL must match one (the whole normalised URL). */
  readonly include: readonly RegExp[];
  readonly exclude: readonly RegExp[];
  /** Seeds are depth 0. */
  readonly maxDepth: number;
  /** Hosts the seeds redirected to, when the scope follows seed redirects. */
  readonly redirectHosts?: Set<string>;
}

export interface NormaliseOptions {
  /** @default true */
  readonly stripTracking: boolean;
  /** @default true */
  readonly sortQuery: boolean;
  /** core/traps/session-ids.ts. @default true */
  readonly stripSessionIds?: boolean;
  /** Learned per crawl (core/traps/host-traps.ts), not set by config. */
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
