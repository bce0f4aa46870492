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

/** What a host taught a job about its traps, and the rules reading a page against it. Pure. */

export interface ObservedPage {
  readonly url: string;
  /** Canonical: session ids and learned parameters out, query sorted. */
  readonly key: string;
  readonly finalUrl: string;
  readonly depth: number;
  readonly contentHash: string;
  /** Computed only when a rule needs it. */
  readonly fingerprint: () => Fingerprint;
}

export interface PageVerdict {
  /** Undefined: follow the page's links. */
  readonly notExpanded?: Extract<TrapReason, 'soft_404' | 'repeated_path' | 'near_duplicate_series'>;
  readonly learnedParams: readonly string[];
  readonly stoppedPattern?: string;
  /** Persist it. */
  readonly changed: boolean;
}

/** Kept beside the frontier, so a restart or another daemon does not relearn it. */
export interface StoredHostTraps {
  readonly params?: readonly string[];
  readonly stopped?: readonly string[];
  readonly soft404?:
    | { readonly kind: 'none' }
    | { readonly kind: 'page'; readonly hash: string; readonly own: string }
    | { readonly kind: 'redirect'; readonly target: string };
}

/** Words a first and later page must share to be a template (a shop's boilerplate, not a home page's links). */
const MIN_TEMPLATE = 16;
const MAX_PATTERNS = 256;
const MAX_CONTENTS = 1024;
/** A small site costs no probe; a soft-404 trap, whose pages multiply, gets there within a few pages. */
export const SOFT_404_PROBE_AFTER = 10;

export class HostTraps {
  readonly #o: TrapOptions;
  readonly #params: ParamLearner;
  readonly #patterns = new LruMap<string, SeriesWatch>(MAX_PATTERNS);
  readonly #stopped = new Set<string>();
  readonly #flat = new LruMap<string, number>(MAX_PATTERNS);
  readonly #contents = new LruMap<string, string>(MAX_CONTENTS);
  #first: Fingerprint | undefined;
  #reference: Fingerprint | undefined;
  #soft404: Soft404 = { kind: 'unknown' };
  #pagesRead = 0;

  constructor(options: TrapOptions) {
    this.#o = options;
    this.#params = new ParamLearner(options.similarity);
  }

  get ignoredParams(): ReadonlySet<string> {
    return this.#params.ignored;
  }

  get soft404(): Soft404['kind'] {
    return this.#soft404.kind;
  }

  /** Marks it probing. */
  takeProbe(): boolean {
    if (!this.#o.soft404 || this.#soft404.kind !== 'unknown' || this.#pagesRead < SOFT_404_PROBE_AFTER)
      return false;
    this.#soft404 = { kind: 'probing' };
    return true;
  }

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

  observe(page: ObservedPage): PageVerdict {
    if (this.#pagesRead < SOFT_404_PROBE_AFTER) this.#pagesRead++;
    let fp: Fingerprint | undefined;
    const full = () => {
      fp ??= page.fingerprint();
      return fp;
    };
    // Not stored: found again from the first pages after a restart.
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

  patternOf(path: string, search: string): string {
    return urlPattern(path, search, (name) => this.#ignores(name));
  }

  isStopped(pattern: string): boolean {
    return this.#stopped.has(pattern);
  }

  /** A pattern whose alike pages were all found at one depth holds back one found deeper (it would make a series). */
  holdsBack(path: string, search: string, depth: number): boolean {
    if (this.#flat.size === 0) return false;
    const flat = this.#flat.get(this.patternOf(path, search));
    return flat !== undefined && depth > flat;
  }

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

  /** `/docs/` and `/docs/docs/`, not `/` and `/index.html`. */
  #repeatsShorterPath(contentHash: string, path: string): boolean {
    const key = contentHash.slice(0, 16);
    const before = this.#contents.get(key);
    if (before !== undefined && isDeeperPath(before, path)) return true;
    if (before === undefined || path.length < before.length) this.#contents.set(key, path);
    return false;
  }

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

  /** The store is shared and outlives versions: what it cannot read is ignored. */
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
