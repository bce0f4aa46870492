import { LruMap } from '../lru-map.js';
import { ownText } from './alike.js';
import { ParamLearner } from './dust.js';
import { decodeFingerprint, encodeFingerprint, type Fingerprint, intersect } from './fingerprint.js';
import { isDeeperPath } from './paths.js';
import { SeriesWatch } from './series-watch.js';
import { isSessionParam } from './session-ids.js';
import { isSoft404, type Soft404 } from './soft-404.js';
import type { TrapOptions, TrapReason } from './trap-options.js';
import { splitKey, urlPattern } from './url-pattern.js';

/**
 * What one host has taught a job about its traps, and the rules that read a fetched page
 * against it: soft 404s, a page that is a shorter path's page again, parameters that do not
 * change the page (dust.ts), URL patterns whose pages keep coming out alike (series-watch.ts). Pure:
 * the caller fetches, persists and counts.
 */

/** A fetched 2xx HTML page, as the rules read it. */
export interface ObservedPage {
  /** The URL requested (as the site wrote it). */
  readonly url: string;
  /**
   * Its dedupe key (canonical: session ids and learned parameters out, the query sorted):
   * patterns, paths and the parameters on test are read from it.
   */
  readonly key: string;
  /** Where the fetch ended after redirects. */
  readonly finalUrl: string;
  readonly depth: number;
  /** The body's content hash (the record's contentHash). */
  readonly contentHash: string;
  /** The body's fingerprint: computed only when a rule needs it. */
  readonly fingerprint: () => Fingerprint;
}

export interface PageVerdict {
  /** Undefined: follow the page's links. */
  readonly notExpanded?: Extract<TrapReason, 'soft_404' | 'repeated_path' | 'near_duplicate_series'>;
  /** Parameters learned by this page (now dropped from the host's keys). */
  readonly learnedParams: readonly string[];
  /** The pattern this page stopped, if it did. */
  readonly stoppedPattern?: string;
  /** The host's stored state changed (persist it). */
  readonly changed: boolean;
}

/** The state kept beside the frontier, so a restart (or another daemon) does not relearn it. */
export interface StoredHostTraps {
  readonly params?: readonly string[];
  readonly stopped?: readonly string[];
  readonly soft404?:
    | { readonly kind: 'none' }
    | { readonly kind: 'page'; readonly hash: string; readonly own: string }
    | { readonly kind: 'redirect'; readonly target: string };
}

/**
 * The host's template is the words its first page shares with a later one, once they share this
 * many: a home page that lists every page by name shares few with any of them, a shop whose
 * pages carry the same 13 KB of boilerplate shares that.
 */
const MIN_TEMPLATE = 16;
/** URL patterns watched per host (most have one page and are forgotten first). */
const MAX_PATTERNS = 256;
/** Content hashes remembered per host for the repeated-path rule. */
const MAX_CONTENTS = 1024;
/**
 * HTML pages of a host read before its soft 404 is probed: a site of a few pages costs no extra
 * request (nor a breadth crawl's thousands of small hosts), and a soft-404 trap, whose pages
 * multiply by their relative links, gets there within its first few pages.
 */
export const SOFT_404_PROBE_AFTER = 10;

export class HostTraps {
  readonly #o: TrapOptions;
  readonly #params: ParamLearner;
  readonly #patterns = new LruMap<string, SeriesWatch>(MAX_PATTERNS);
  readonly #stopped = new Set<string>();
  /** Patterns whose alike sample was all found at one depth, and that depth (SeriesWatch.flatDepth). */
  readonly #flat = new LruMap<string, number>(MAX_PATTERNS);
  readonly #contents = new LruMap<string, string>(MAX_CONTENTS);
  /** The host's first page with some text, until the template is found. */
  #first: Fingerprint | undefined;
  /** The words of the host's template (header, menus, footer), taken out of every page. */
  #reference: Fingerprint | undefined;
  #soft404: Soft404 = { kind: 'unknown' };
  /** HTML pages read (up to SOFT_404_PROBE_AFTER: only the probe's start needs the count). */
  #pagesRead = 0;

  constructor(options: TrapOptions) {
    this.#o = options;
    this.#params = new ParamLearner(options.similarity);
  }

  /** Query parameters found not to change this host's pages (lower case). */
  get ignoredParams(): ReadonlySet<string> {
    return this.#params.ignored;
  }

  get soft404(): Soft404['kind'] {
    return this.#soft404.kind;
  }

  /** Whether the host's "not found" should be probed now (marks it probing). */
  takeProbe(): boolean {
    if (!this.#o.soft404 || this.#soft404.kind !== 'unknown' || this.#pagesRead < SOFT_404_PROBE_AFTER)
      return false;
    this.#soft404 = { kind: 'probing' };
    return true;
  }

  /** The probe's answer: a 2xx page (and where it ended), or anything else (`undefined`). */
  probed(page: Omit<ObservedPage, 'depth' | 'key'> | undefined): void {
    if (page === undefined) {
      this.#soft404 = { kind: 'none' };
      return;
    }
    if (page.finalUrl !== page.url) {
      this.#soft404 = { kind: 'redirect', target: page.finalUrl };
      return;
    }
    this.#soft404 = {
      kind: 'page',
      hash: page.contentHash,
      own: ownText(page.fingerprint(), this.#reference),
    };
  }

  /** Reads a fetched page against what the host taught. */
  observe(page: ObservedPage): PageVerdict {
    if (this.#pagesRead < SOFT_404_PROBE_AFTER) this.#pagesRead++;
    let fp: Fingerprint | undefined;
    const full = () => {
      fp ??= page.fingerprint();
      return fp;
    };
    // Not stored: after a restart the template is found again from the first pages read.
    if (this.#reference === undefined) this.#findTemplate(full());
    const own = () => ownText(full(), this.#reference);
    const { path, search } = splitKey(page.key);
    const pattern = this.patternOf(path, search);
    // A seed is what the operator asked for: never a soft 404.
    if (page.depth > 0 && isSoft404(this.#soft404, this.#soft404Page(page), () => ({ own: own() }))) {
      const stopped = this.#o.nearDuplicates && !this.#stopped.has(pattern) && this.#watch(pattern).soft404();
      if (!stopped) return { notExpanded: 'soft_404', learnedParams: [], changed: false };
      this.#stop(pattern);
      return { notExpanded: 'soft_404', learnedParams: [], stoppedPattern: pattern, changed: true };
    }
    if (this.#o.repeatedPaths && this.#repeatsShorterPath(page.contentHash, path)) {
      return { notExpanded: 'repeated_path', learnedParams: [], changed: false };
    }
    const learnedParams = this.#o.learnParams ? this.#learnParams(path, search, own) : [];
    const changed = learnedParams.length > 0;
    if (!this.#o.nearDuplicates) return { learnedParams, changed };
    if (this.#stopped.has(pattern)) return { notExpanded: 'near_duplicate_series', learnedParams, changed };
    const watch = this.#watch(pattern);
    if (!watch.nextSampled(page.depth)) return { learnedParams, changed };
    const series = watch.add(own(), page.depth);
    const flat = watch.flatDepth();
    if (flat === undefined) this.#flat.delete(pattern);
    else this.#flat.set(pattern, flat);
    if (!series) return { learnedParams, changed };
    this.#stop(pattern);
    return { notExpanded: 'near_duplicate_series', learnedParams, stoppedPattern: pattern, changed: true };
  }

  #watch(pattern: string): SeriesWatch {
    let watch = this.#patterns.get(pattern);
    if (watch === undefined) {
      watch = new SeriesWatch(this.#o.seriesSample, this.#o.similarity);
      this.#patterns.set(pattern, watch);
    }
    return watch;
  }

  #stop(pattern: string): void {
    this.#stopped.add(pattern);
    this.#flat.delete(pattern);
    this.#patterns.delete(pattern);
  }

  /** The URL's pattern, without session ids and the parameters learned not to matter. */
  patternOf(path: string, search: string): string {
    return urlPattern(path, search, (name) => this.#ignores(name));
  }

  /** Whether URLs of this pattern are no longer fetched (a near-duplicate series). */
  isStopped(pattern: string): boolean {
    return this.#stopped.has(pattern);
  }

  /**
   * Whether a queued URL is held back before its fetch: its pattern's pages came out alike, all
   * found at one depth (a family the pages above list, fetched in full), and it was found deeper,
   * which would make them a series (the next month's days below a calendar's month). In the
   * process only: after a restart the pattern is sampled again.
   */
  holdsBack(path: string, search: string, depth: number): boolean {
    if (this.#flat.size === 0) return false;
    const flat = this.#flat.get(this.patternOf(path, search));
    return flat !== undefined && depth > flat;
  }

  /** Whether any pattern of the host is stopped (the per-link check is skipped otherwise). */
  get hasStopped(): boolean {
    return this.#stopped.size > 0;
  }

  #findTemplate(page: Fingerprint): void {
    if (this.#first === undefined) {
      if (page.length >= MIN_TEMPLATE) this.#first = page;
      return;
    }
    const common = intersect(this.#first, page);
    if (common.length < MIN_TEMPLATE) return;
    this.#reference = common;
    this.#first = undefined;
  }

  #soft404Page(page: ObservedPage) {
    return { url: page.url, finalUrl: page.finalUrl, contentHash: page.contentHash };
  }

  #ignores(name: string): boolean {
    return this.#params.ignored.has(name) || (this.#o.sessionIds && isSessionParam(name, 'x'.repeat(8)));
  }

  /**
   * The page is byte for byte the page of a path its own path extends into a directory below
   * (`/docs/` and `/docs/docs/`; not `/` and `/index.html`).
   */
  #repeatsShorterPath(contentHash: string, path: string): boolean {
    const key = contentHash.slice(0, 16);
    const before = this.#contents.get(key);
    if (before !== undefined && isDeeperPath(before, path)) return true;
    if (before === undefined || path.length < before.length) this.#contents.set(key, path);
    return false;
  }

  /** The key's path and query: session ids and parameters already learned are out of it. */
  #learnParams(path: string, search: string, own: () => Fingerprint): string[] {
    if (search.length <= 1) return [];
    const pairs: [string, string][] = [];
    for (const pair of search.slice(1).split('&')) {
      if (pair === '') continue;
      const eq = pair.indexOf('=');
      const name = (eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
      const value = eq < 0 ? '' : pair.slice(eq + 1);
      if (this.#o.sessionIds && isSessionParam(name, value)) continue;
      pairs.push([name, value]);
    }
    if (pairs.length === 0 || !this.#params.testing(pairs)) return [];
    return this.#params.observe(path, pairs, own());
  }

  /** The state to keep beside the frontier. */
  stored(): StoredHostTraps {
    const s = this.#soft404;
    return {
      ...(this.#params.ignored.size > 0 ? { params: [...this.#params.ignored] } : {}),
      ...(this.#stopped.size > 0 ? { stopped: [...this.#stopped] } : {}),
      ...(s.kind === 'none' || s.kind === 'redirect' ? { soft404: s } : {}),
      ...(s.kind === 'page'
        ? {
            soft404: { kind: 'page' as const, hash: s.hash, own: encodeFingerprint(s.own) },
          }
        : {}),
    };
  }

  /**
   * Takes what was kept (by this daemon before a restart, or by another one). The store is
   * shared and outlives versions: what it cannot read is ignored, never thrown.
   */
  restore(s: StoredHostTraps): void {
    for (const p of strings(s.params)) this.#params.ignored.add(p);
    for (const p of strings(s.stopped)) this.#stopped.add(p);
    const soft = s.soft404;
    if (soft === undefined || this.#soft404.kind === 'page' || this.#soft404.kind === 'redirect') return;
    if (soft.kind === 'none') this.#soft404 = { kind: 'none' };
    if (soft.kind === 'redirect' && typeof soft.target === 'string')
      this.#soft404 = { kind: 'redirect', target: soft.target };
    if (soft.kind !== 'page' || typeof soft.hash !== 'string' || typeof soft.own !== 'string') return;
    const own = decodeFingerprint(soft.own);
    if (own !== undefined) this.#soft404 = { kind: 'page', hash: soft.hash, own };
  }
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}
