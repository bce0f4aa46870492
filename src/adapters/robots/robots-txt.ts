/**
 * robots.txt per RFC 9309, reading what Google's robots.cc reads (docs/politeness.md): our own,
 * as robots-parser differs from both (test/unit/robots-txt.test.ts compares them).
 */

/** robots.cc's line buffer: a longer line is cut, not dropped. */
export const ROBOTS_MAX_LINE = 2083 * 8;
/** RFC 9309 §2.5: parse at least the first 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

interface Rule {
  readonly allow: boolean;
  readonly pattern: string;
}

interface Group {
  /** Lower-cased product tokens; '*' for the global group. */
  readonly agents: string[];
  readonly rules: Rule[];
  crawlDelaySec?: number;
}

export interface RobotsTxt {
  readonly groups: readonly Group[];
  readonly sitemaps: readonly string[];
}

const HEX = '0123456789ABCDEF';
const UNRESERVED = /[A-Za-z0-9\-._~]/;

/** robots.cc MaybeEscapePattern (RFC 9309 §2.2.2): `/%62%61%7A` never matches `/baz`. */
export function normalisePath(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (isEscape(s, i)) {
      out += `%${s.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else if (c >= 0x80) {
      const cp = s.codePointAt(i) ?? c;
      if (cp > 0xffff) i++;
      for (const b of Buffer.from(String.fromCodePoint(cp), 'utf8')) out += `%${HEX[b >> 4]}${HEX[b & 15]}`;
    } else {
      out += s[i];
    }
  }
  return out;
}

/** The URL side: nothing encoded, as robots.cc expects the URL percent-encoded already. */
function urlPathForm(s: string, decodeUnreserved: boolean): string {
  if (!s.includes('%')) return s;
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (!isEscape(s, i)) {
      out += s[i];
      continue;
    }
    const ch = String.fromCharCode(Number.parseInt(s.slice(i + 1, i + 3), 16));
    out += decodeUnreserved && UNRESERVED.test(ch) ? ch : `%${s.slice(i + 1, i + 3).toUpperCase()}`;
    i += 2;
  }
  return out;
}

function isEscape(s: string, i: number): boolean {
  return s.charCodeAt(i) === 0x25 /* % */ && isHex(s[i + 1]) && isHex(s[i + 2]);
}

function isHex(ch: string | undefined): boolean {
  return ch !== undefined && /[0-9A-Fa-f]/.test(ch);
}

/** ASCII only, as robots.cc: not trim()'s U+00A0 or U+FEFF. */
const SPACE = /[\t\n\v\f\r ]/;
const EDGE_SPACE = /^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g;

function strip(s: string): string {
  return s.replace(EDGE_SPACE, '');
}

function agentToken(value: string): string {
  if (value.startsWith('*') && (value.length === 1 || SPACE.test(value[1] ?? ''))) return '*';
  const m = /^[A-Za-z_-]*/.exec(value);
  return (m?.[0] ?? '').toLowerCase();
}

type Key = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | undefined;

/** robots.cc's prefixes, typos included. */
function keyOf(raw: string): Key {
  const k = raw.toLowerCase();
  if (k.startsWith('user-agent') || k.startsWith('useragent') || k.startsWith('user agent'))
    return 'user-agent';
  if (k.startsWith('allow')) return 'allow';
  if (['disallow', 'dissallow', 'dissalow', 'disalow', 'diasllow', 'disallaw'].some((p) => k.startsWith(p)))
    return 'disallow';
  if (k.startsWith('sitemap') || k.startsWith('site-map')) return 'sitemap';
  if (k.startsWith('crawl-delay') || k.startsWith('crawldelay')) return 'crawl-delay';
  return undefined;
}

function keyValue(line: string): [string, string] | undefined {
  const hash = line.indexOf('#');
  const l = strip(hash >= 0 ? line.slice(0, hash) : line);
  if (l === '') return undefined;
  let sep = l.indexOf(':');
  if (sep < 0) {
    // A forgotten colon: accepted when the line is exactly two words separated by spaces or tabs.
    const m = /^([^ \t]+)[ \t]+([^ \t]+)$/.exec(l);
    if (!m) return undefined;
    return [strip(m[1] ?? ''), strip(m[2] ?? '')];
  }
  const key = strip(l.slice(0, sep));
  sep++;
  if (key === '') return undefined;
  return [key, strip(l.slice(sep))];
}

/** Cut at a line end: half a line could turn `Disallow: /private` into `Disallow: /`. */
export function robotsBodyText(body: Buffer, maxBytes = ROBOTS_MAX_BYTES): string {
  let b = body;
  if (b.length > maxBytes) {
    let end = maxBytes;
    while (end > 0 && b[end - 1] !== 0x0a && b[end - 1] !== 0x0d) end--;
    b = b.subarray(0, end > 0 ? end : maxBytes);
  }
  return b.toString('utf8');
}

/** Never throws. */
export function parseRobotsTxt(text: string): RobotsTxt {
  const groups: Group[] = [];
  const sitemaps: string[] = [];
  let current: Group | undefined;
  // A group's User-agent lines end at its first rule; the next User-agent line starts a new group.
  let sawRule = false;
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  for (const rawLine of body.split(/\r\n|\r|\n/)) {
    const kv = keyValue(rawLine.length >= ROBOTS_MAX_LINE ? rawLine.slice(0, ROBOTS_MAX_LINE - 1) : rawLine);
    if (!kv) continue;
    const [rawKey, value] = kv;
    const key = keyOf(rawKey);
    switch (key) {
      case 'user-agent': {
        if (!current || sawRule) {
          current = { agents: [], rules: [] };
          groups.push(current);
          sawRule = false;
        }
        const token = agentToken(value);
        if (token !== '') current.agents.push(token);
        break;
      }
      case 'allow':
      case 'disallow': {
        if (!current) break; // rules before any User-agent line belong to no group
        sawRule = true;
        // An empty Disallow allows everything: it matches nothing (RFC 9309 §2.2.2).
        if (value === '' && key === 'disallow') break;
        const pattern = normalisePath(value);
        current.rules.push({ allow: key === 'allow', pattern });
        // robots.cc: `Allow: /dir/index.html` also allows `/dir/` exactly.
        const slash = pattern.lastIndexOf('/');
        if (key === 'allow' && slash >= 0 && pattern.slice(slash).startsWith('/index.htm'))
          current.rules.push({ allow: true, pattern: `${pattern.slice(0, slash + 1)}$` });
        break;
      }
      case 'crawl-delay': {
        if (!current) break;
        const n = Number.parseFloat(value);
        if (Number.isFinite(n) && n >= 0) current.crawlDelaySec = n;
        break;
      }
      case 'sitemap':
        if (value !== '') sitemaps.push(value);
        break;
      default:
        break;
    }
  }
  return { groups, sitemaps };
}

export function patternMatches(path: string, pattern: string): boolean {
  // robots.cc Matches: the set of path positions the pattern so far can end at.
  let pos = [0];
  for (let p = 0; p < pattern.length; p++) {
    const ch = pattern[p];
    if (ch === '$' && p === pattern.length - 1) return pos.includes(path.length);
    if (ch === '*') {
      const from = pos[0] ?? 0;
      pos = [];
      for (let i = from; i <= path.length; i++) pos.push(i);
      continue;
    }
    const next: number[] = [];
    for (const i of pos) if (i < path.length && path[i] === ch) next.push(i + 1);
    if (next.length === 0) return false;
    pos = next;
  }
  return true;
}

function groupsFor(robots: RobotsTxt, token: string): Group[] {
  const t = token.toLowerCase();
  const specific = robots.groups.filter((g) => g.agents.includes(t));
  return specific.length > 0 ? specific : robots.groups.filter((g) => g.agents.includes('*'));
}

/** robots.cc GetPathParamsQuery, on the string as given (never re-parsed). */
export function pathParamsQuery(url: string): string {
  const NONE = Number.POSITIVE_INFINITY;
  const find = (i: number) => (i < 0 ? NONE : i);
  const firstOfPathStart = (from: number) => {
    for (let i = from; i < url.length; i++) if (url[i] === '/' || url[i] === '?' || url[i] === ';') return i;
    return NONE;
  };
  const searchStart = url.startsWith('//') ? 2 : 0;
  const earlyPath = firstOfPathStart(searchStart);
  let protocolEnd = find(url.indexOf('://', searchStart));
  // A path, params or query before `://`: the `://` is not the scheme's.
  if (earlyPath < protocolEnd) protocolEnd = NONE;
  protocolEnd = protocolEnd === NONE ? searchStart : protocolEnd + 3;
  const pathStart = firstOfPathStart(protocolEnd);
  if (pathStart === NONE) return '/';
  const hash = find(url.indexOf('#', searchStart));
  if (hash < pathStart) return '/';
  const path = url.slice(pathStart, hash === NONE ? url.length : hash);
  return url[pathStart] === '/' ? path : `/${path}`;
}

/** As written and with unreserved escapes decoded: `Allow: /baz` matches `/%62%61%7A` too. */
export function robotsPaths(url: string): readonly string[] {
  const written = pathParamsQuery(url);
  const raw = urlPathForm(written, false);
  const decoded = urlPathForm(written, true);
  return decoded === raw ? [raw] : [raw, decoded];
}

/** RFC 9309 §2.2.2: the longest match decides, Allow wins a tie; same-agent groups merge. */
export function isAllowedBy(robots: RobotsTxt, token: string, url: string): boolean {
  const paths = robotsPaths(url);
  let best = -1;
  let allow = true;
  for (const g of groupsFor(robots, token)) {
    for (const r of g.rules) {
      const len = r.pattern.length;
      if (len < best || (len === best && !r.allow)) continue;
      if (!paths.some((path) => patternMatches(path, r.pattern))) continue;
      if (len > best || r.allow) allow = r.allow;
      best = len;
    }
  }
  return allow;
}

/** Not in RFC 9309; widely used. */
export function crawlDelayFor(robots: RobotsTxt, token: string): number | undefined {
  let d: number | undefined;
  for (const g of groupsFor(robots, token))
    if (g.crawlDelaySec !== undefined) d = Math.max(d ?? 0, g.crawlDelaySec);
  return d;
}

export function productToken(userAgent: string): string {
  return (userAgent.trim().split(/[/\s]/)[0] ?? '').toLowerCase();
}
