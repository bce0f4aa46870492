import { InvalidUrlError } from './errors.js';
import { HostPatterns, type SplitHost } from './host-patterns.js';
import type { NormaliseOptions, ScopeRules } from './rules.js';
import { isSessionParam, stripSessionPath } from './traps/session-ids.js';

/** URL canonicalisation and scope checks. The canonical form is the dedupe key, so it must be idempotent. */

export const DEFAULT_NORMALISE_OPTIONS: NormaliseOptions = {
  stripTracking: true,
  sortQuery: true,
  stripSessionIds: true,
};

const TRACKING_PARAMS = new Set(['gclid', 'fbclid', 'msclkid', 'mc_cid', 'mc_eid', '_ga', 'yclid', 'igshid']);

function isTrackingParam(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING_PARAMS.has(lower);
}

const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** RFC 3986 §6.2.2: '%7e', '%7E' and '~' compare equal. */
function normalisePercent(s: string): string {
  if (!s.includes('%')) return s;
  return s.replace(/%([0-9a-fA-F]{2})/g, (_m, hex: string) => {
    const ch = String.fromCharCode(Number.parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function paramValue(pair: string): string {
  const eq = pair.indexOf('=');
  return eq < 0 ? '' : pair.slice(eq + 1);
}

function paramName(pair: string): string {
  const eq = pair.indexOf('=');
  const raw = eq < 0 ? pair : pair.slice(0, eq);
  try {
    return decodeURIComponent(raw.replace(/\+/g, ' '));
  } catch {
    return raw;
  }
}

export interface KeyReport {
  stripped?: 'session_id' | 'session_like';
}

// The raw query, not URLSearchParams: re-serialising rewrites encodings ('%20' -> '+') that servers see.
function normaliseQuery(
  search: string,
  opts: NormaliseOptions,
  ignored: ReadonlySet<string> | undefined,
  report: KeyReport | undefined,
): string {
  if (search.length <= 1) return '';
  let pairs = search
    .slice(1)
    .split('&')
    .filter((p) => p !== '');
  if (opts.stripTracking) pairs = pairs.filter((p) => !isTrackingParam(paramName(p)));
  const before = pairs.length;
  if (opts.stripSessionIds !== false)
    pairs = pairs.filter((p) => !isSessionParam(paramName(p), paramValue(p)));
  if (report !== undefined && pairs.length < before) report.stripped = 'session_id';
  if (ignored !== undefined && ignored.size > 0) {
    const n = pairs.length;
    pairs = pairs.filter((p) => !ignored.has(paramName(p).toLowerCase()));
    if (report !== undefined && pairs.length < n) report.stripped ??= 'session_like';
  }
  if (opts.sortQuery) {
    // Sort by name only (stable): repeated parameters keep their order.
    const keyed = pairs.map((p) => ({ p, k: paramName(p) }));
    keyed.sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0));
    pairs = keyed.map((e) => e.p);
  }
  return pairs.length === 0 ? '' : `?${normalisePercent(pairs.join('&'))}`;
}

function parseHttpUrl(input: string, base?: string): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch (err) {
    throw new InvalidUrlError(`invalid URL: ${JSON.stringify(input)}`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidUrlError(`unsupported scheme ${url.protocol} in ${JSON.stringify(input)}`);
  }
  return url;
}

/**
 * Canonical form: WHATWG parsing, fragment dropped, query cleaned, escapes uniform; path case kept.
 * @throws InvalidUrlError when unparsable or not http(s).
 */
export function normaliseUrl(input: string, base?: string, opts?: Partial<NormaliseOptions>): string {
  return canonical(parseHttpUrl(input, base), opts);
}

function fullOptions(opts: Partial<NormaliseOptions> | undefined): NormaliseOptions {
  if (opts === undefined) return DEFAULT_NORMALISE_OPTIONS;
  // No object per link when nothing is missing.
  if (opts.stripTracking !== undefined && opts.sortQuery !== undefined) return opts as NormaliseOptions;
  return { ...DEFAULT_NORMALISE_OPTIONS, ...opts };
}

function canonical(url: URL, opts?: Partial<NormaliseOptions>, report?: KeyReport): string {
  const o = fullOptions(opts);
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  const raw = o.stripSessionIds !== false ? stripSessionPath(url.pathname) : url.pathname;
  if (report !== undefined && raw !== url.pathname) report.stripped = 'session_id';
  const path = normalisePercent(raw);
  const ignored = url.search.length > 1 ? o.ignoredParams?.(url.host) : undefined;
  return `${url.protocol}//${auth}${url.host}${path}${normaliseQuery(url.search, o, ignored, report)}`;
}

/** As written, only the fragment dropped: signed and order-sensitive URLs work only as written. */
function wireForm(url: URL): string {
  const href = url.href;
  const hash = href.indexOf('#');
  return hash < 0 ? href : href.slice(0, hash);
}

/** @throws InvalidUrlError when unparsable or not http(s). */
export function discoveredUrl(
  input: string,
  base?: string,
  opts?: Partial<NormaliseOptions>,
): { url: string; requestUrl?: string } {
  const parsed = parseHttpUrl(input, base);
  const url = canonical(parsed, opts);
  const wire = wireForm(parsed);
  return wire === url ? { url } : { url, requestUrl: wire };
}

export function tryNormaliseUrl(
  input: string,
  base?: string,
  opts?: Partial<NormaliseOptions>,
): string | undefined {
  try {
    return normaliseUrl(input, base, opts);
  } catch {
    return undefined;
  }
}

/** @throws InvalidUrlError when unparsable or not http(s). */
export function hostKey(url: string): string {
  return parseHttpUrl(url).host;
}

function splitHost(host: string): SplitHost {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host.trim());
  const name = (m?.[1] ?? host).toLowerCase().replace(/\.$/, '');
  const port = m?.[2] || undefined;
  return { name, port };
}

const splitPatterns = new Map<string, SplitHost>();
function splitPattern(pattern: string): SplitHost {
  let p = splitPatterns.get(pattern);
  if (p === undefined) {
    p = splitHost(pattern);
    if (splitPatterns.size < 10_000) splitPatterns.set(pattern, p);
  }
  return p;
}

const compiled = new WeakMap<readonly string[], HostPatterns>();
function compiledHosts(patterns: readonly string[]): HostPatterns {
  let c = compiled.get(patterns);
  if (c === undefined) {
    c = new HostPatterns(patterns.map(splitHost));
    compiled.set(patterns, c);
  }
  return c;
}

function matchesSplit(h: SplitHost, p: SplitHost): boolean {
  if (p.port !== undefined && p.port !== h.port) return false;
  if (p.name === '*') return true;
  if (p.name.startsWith('*.')) {
    const apex = p.name.slice(2);
    return h.name === apex || h.name.endsWith(`.${apex}`);
  }
  return h.name === p.name;
}

/** '*' any host, 'name' exactly, '*.apex' apex and subdomains; a port in the pattern must match. */
export function matchesHostPattern(host: string, pattern: string): boolean {
  return matchesSplit(splitHost(host), splitPattern(pattern));
}

export type ScopeVerdict =
  | { ok: true }
  | { ok: false; reason: 'host' | 'include' | 'exclude' | 'depth' | 'scheme' };

function testRegex(re: RegExp, s: string): boolean {
  // A /g or /y regex keeps state between test() calls.
  re.lastIndex = 0;
  return re.test(s);
}

/** `depth`: seeds 0, their links 1, ... `url` normalised; an empty `hosts` list matches nothing. */
export function inScope(url: string, depth: number, scope: ScopeRules): ScopeVerdict {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'scheme' };
  }
  return scopeOf(parsed, url, depth, scope);
}

/** One parse for both: link discovery runs them on every link. */
export function normaliseInScope(
  input: string,
  depth: number,
  scope: ScopeRules,
  opts?: Partial<NormaliseOptions>,
  report?: KeyReport,
):
  | { ok: true; url: string; requestUrl: string | undefined }
  | { ok: false; reason: 'invalid' | Exclude<ScopeVerdict, { ok: true }>['reason'] } {
  let parsed: URL;
  try {
    parsed = parseHttpUrl(input);
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  const url = canonical(parsed, opts, report);
  const verdict = scopeOf(parsed, url, depth, scope);
  if (!verdict.ok) return verdict;
  const wire = wireForm(parsed);
  return { ok: true, url, requestUrl: wire === url ? undefined : wire };
}

/** The check a redirect target passes: a redirect is the same page, moved. */
export function hostInScope(url: URL, scope: ScopeRules): boolean {
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const host: SplitHost = { name: url.hostname.toLowerCase().replace(/\.$/, ''), port };
  return compiledHosts(scope.hosts).matches(host) || scope.redirectHosts?.has(url.host) === true;
}

function scopeOf(parsed: URL, url: string, depth: number, scope: ScopeRules): ScopeVerdict {
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { ok: false, reason: 'scheme' };
  if (!hostInScope(parsed, scope)) return { ok: false, reason: 'host' };
  if (depth > scope.maxDepth) return { ok: false, reason: 'depth' };
  if (scope.exclude.some((re) => testRegex(re, url))) return { ok: false, reason: 'exclude' };
  if (scope.include.length > 0 && !scope.include.some((re) => testRegex(re, url))) {
    return { ok: false, reason: 'include' };
  }
  return { ok: true };
}
