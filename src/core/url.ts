import { InvalidUrlError } from './errors.js';
import { HostPatterns, type SplitHost } from './host-patterns.js';
import type { NormaliseOptions, ScopeRules } from './rules.js';
import { isSessionParam, stripSessionPath } from './traps/session-ids.js';

/**
 * URL canonicalisation and scope checks. Pure: no I/O, no clock.
 *
 * The canonical form is the frontier's dedupe key, so it must be idempotent:
 * normaliseUrl(normaliseUrl(x)) === normaliseUrl(x).
 */

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

/**
 * Uppercases the hex of every %xx and decodes escapes of unreserved characters
 * (RFC 3986 §6.2.2), so '%7e', '%7E' and '~' all compare equal.
 */
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

/**
 * Works on the raw query string rather than URLSearchParams: re-serialising through
 * URLSearchParams would rewrite encodings ('%20' -> '+', 'a' -> 'a=') and so change
 * what some servers see.
 */
/** Which trap rule changed a key, if one did (link discovery counts them). */
export interface KeyReport {
  stripped?: 'session_id' | 'session_like';
}

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
    // Sort by name only (Array.prototype.sort is stable): the order of repeated
    // parameters (?a=2&a=1) can be meaningful, so it is kept.
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
 * Canonical form of an http(s) URL. WHATWG parsing already lower-cases scheme and host,
 * drops default ports, resolves dot segments (including %2e) and punycodes IDNs; on top of
 * that the fragment is dropped, the query cleaned (see NormaliseOptions) and percent escapes
 * made uniform. Path case is kept: paths are case-sensitive on most servers.
 * @throws InvalidUrlError when unparsable or not http(s).
 */
export function normaliseUrl(input: string, base?: string, opts?: Partial<NormaliseOptions>): string {
  return canonical(parseHttpUrl(input, base), opts);
}

/** The options in full: a job's (already complete) as they are, partial ones over the defaults. */
function fullOptions(opts: Partial<NormaliseOptions> | undefined): NormaliseOptions {
  if (opts === undefined) return DEFAULT_NORMALISE_OPTIONS;
  // No new object per link when nothing is missing (a job's options never miss anything).
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

/**
 * The URL to request: as the site wrote it, WHATWG-parsed and resolved (so `/a/../b` and
 * `HTTP://Host` are what a browser would send), with only the fragment dropped (never sent).
 * Query order, tracking parameters and percent-escapes are kept: signed and order-sensitive
 * URLs work only as written. The canonical form serves as the dedupe key, never on the wire.
 */
function wireForm(url: URL): string {
  const href = url.href;
  const hash = href.indexOf('#');
  return hash < 0 ? href : href.slice(0, hash);
}

/**
 * The two forms of a discovered URL, ready to spread into an EnqueueRequest: `url` is the
 * dedupe key (normaliseUrl), `requestUrl` the URL to request when it differs from the key.
 * @throws InvalidUrlError when unparsable or not http(s).
 */
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

/** normaliseUrl, returning undefined instead of throwing. */
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

/**
 * The politeness / per-host key of a URL: lower-case host, with the port when it is not
 * the scheme's default (WHATWG's URL.host).
 * @throws InvalidUrlError when unparsable or not http(s).
 */
export function hostKey(url: string): string {
  return parseHttpUrl(url).host;
}

/** Splits 'host', 'host:port', '[v6]' or '[v6]:port'; lower-cases and drops a trailing dot. */
function splitHost(host: string): SplitHost {
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(host.trim());
  const name = (m?.[1] ?? host).toLowerCase().replace(/\.$/, '');
  const port = m?.[2] || undefined;
  return { name, port };
}

/** Scope patterns come from the config, so they are few: each is split once, not per link. */
const splitPatterns = new Map<string, SplitHost>();
function splitPattern(pattern: string): SplitHost {
  let p = splitPatterns.get(pattern);
  if (p === undefined) {
    p = splitHost(pattern);
    if (splitPatterns.size < 10_000) splitPatterns.set(pattern, p);
  }
  return p;
}

/** Each scope's host list compiled once (scopes live as long as their job's config). */
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

/**
 * Whether a host ('example.com' or 'example.com:8080') matches a scope pattern:
 * - '*' matches any host;
 * - 'example.com' matches exactly that hostname;
 * - '*.example.com' matches example.com and every subdomain of it.
 * A pattern without a port matches the hostname on any port; a pattern with a port
 * ('example.com:8080', '*:8080') also requires that port. Case-insensitive.
 */
export function matchesHostPattern(host: string, pattern: string): boolean {
  return matchesSplit(splitHost(host), splitPattern(pattern));
}

export type ScopeVerdict =
  | { ok: true }
  | { ok: false; reason: 'host' | 'include' | 'exclude' | 'depth' | 'scheme' };

function testRegex(re: RegExp, s: string): boolean {
  // A /g or /y regex keeps state between test() calls; scope checks must not.
  re.lastIndex = 0;
  return re.test(s);
}

/**
 * Whether a URL may be crawled at `depth` (the depth it would be fetched at: seeds are 0,
 * links found on a page at depth d are d+1, so depth > maxDepth is out).
 * `url` should already be normalised: include/exclude regexes see it as given.
 * Host patterns are matched against the URL's hostname, plus its effective port (the
 * scheme's default when none is written) when a pattern names one. An empty `hosts`
 * list matches nothing; use '*' to allow any host.
 * Checks run cheapest first: scheme, host, depth, exclude, include.
 */
export function inScope(url: string, depth: number, scope: ScopeRules): ScopeVerdict {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, reason: 'scheme' };
  }
  return scopeOf(parsed, url, depth, scope);
}

/**
 * normaliseUrl then inScope on one parse, for link discovery, which runs them on every link of
 * every page (~12 links a page on the demo site; each parse of every link is ~2% of a crawl's CPU).
 */
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
  // The canonical form keeps protocol, hostname and port, so the parse serves both.
  const url = canonical(parsed, opts, report);
  const verdict = scopeOf(parsed, url, depth, scope);
  if (!verdict.ok) return verdict;
  const wire = wireForm(parsed);
  return { ok: true, url, requestUrl: wire === url ? undefined : wire };
}

/**
 * Whether a URL's host is one the scope crawls (its host patterns, or a host a seed redirected
 * to): the check a redirect target passes. Paths, depth and regexes are not asked: a redirect
 * is the same page, moved.
 */
export function hostInScope(url: URL, scope: ScopeRules): boolean {
  // The hostname plus its effective port (the scheme's default when none is written).
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
