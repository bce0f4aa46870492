/**
 * robots.txt parsing and matching per RFC 9309, reading what Google's reference parser
 * (github.com/google/robotstxt, robots.cc) reads. Pure: text in, decisions out.
 *
 * Why our own parser and not robots-parser alone: robots-parser (kept as the reference of a
 * differential test, test/unit/robots-txt.test.ts) drops lines without a colon, compares the
 * whole User-agent value instead of its product token, does not merge groups of the same
 * agent, and normalises the URL it is given (WHATWG-parsing it again); each of those differs
 * from the RFC and the reference parser. docs/politeness.md lists the rules.
 */

/**
 * The reference parser's line buffer (2083 * 8 bytes, its last one the terminator): a longer
 * line keeps its first ROBOTS_MAX_LINE - 1 characters, the rest is dropped, not the line.
 */
export const ROBOTS_MAX_LINE = 2083 * 8;
/** RFC 9309 §2.5: parse at least the first 500 KiB. */
export const ROBOTS_MAX_BYTES = 500 * 1024;

interface Rule {
  readonly allow: boolean;
  /** Normalised pattern (normalisePath), with `*` and a trailing `$` as operators. */
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

/**
 * RFC 9309 §2.2.2 and Google's reference parser: characters outside US-ASCII are
 * percent-encoded as UTF-8 and escapes have their hex upper-cased (`%2f` and `%2F` are one
 * thing, never `/`). A robots.txt pattern keeps its escapes as written: `Allow: /%62%61%7A`
 * matches the URL path `/%62%61%7A`, never `/baz` (robots_test.cc ID_Encoding). With
 * `decodeUnreserved` (the URL side, see `robotsPaths`) an escaped unreserved character becomes
 * the character itself, as the RFC's table reads the URI `/foo/bar/%62%61%7A`.
 */
export function normalisePath(s: string, decodeUnreserved = false): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25 /* % */ && i + 2 < s.length && isHex(s[i + 1]) && isHex(s[i + 2])) {
      const byte = Number.parseInt(s.slice(i + 1, i + 3), 16);
      const ch = String.fromCharCode(byte);
      out +=
        decodeUnreserved && byte < 0x80 && UNRESERVED.test(ch)
          ? ch
          : `%${s.slice(i + 1, i + 3).toUpperCase()}`;
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

function isHex(ch: string | undefined): boolean {
  return ch !== undefined && /[0-9A-Fa-f]/.test(ch);
}

/** The reference parser's product token of a User-agent value: leading [A-Za-z_-] characters. */
function agentToken(value: string): string {
  if (value.startsWith('*') && (value.length === 1 || /\s/.test(value[1] ?? ''))) return '*';
  const m = /^[A-Za-z_-]*/.exec(value);
  return (m?.[0] ?? '').toLowerCase();
}

type Key = 'user-agent' | 'allow' | 'disallow' | 'sitemap' | 'crawl-delay' | undefined;

/** Keys as robots.cc recognises them: case-insensitive prefixes, with its accepted typos. */
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

/** One line's key and value, or undefined (robots.cc GetKeyAndValueFrom). */
function keyValue(line: string): [string, string] | undefined {
  const hash = line.indexOf('#');
  const l = (hash >= 0 ? line.slice(0, hash) : line).trim();
  if (l === '') return undefined;
  let sep = l.indexOf(':');
  if (sep < 0) {
    // A forgotten colon: accepted when the line is exactly two whitespace-separated words.
    const m = /^(\S+)[ \t]+(\S+)$/.exec(l);
    if (!m) return undefined;
    return [m[1] ?? '', m[2] ?? ''];
  }
  const key = l.slice(0, sep).trim();
  sep++;
  if (key === '') return undefined;
  return [key, l.slice(sep).trim()];
}

/**
 * Cuts a body to what is parsed: at most ROBOTS_MAX_BYTES, ending at the last line end within
 * them (a line cut in half could turn `Disallow: /private` into `Disallow: /`).
 */
export function robotsBodyText(body: Buffer, maxBytes = ROBOTS_MAX_BYTES): string {
  let b = body;
  if (b.length > maxBytes) {
    let end = maxBytes;
    while (end > 0 && b[end - 1] !== 0x0a && b[end - 1] !== 0x0d) end--;
    // One line longer than the whole budget: keep the budget (the line is truncated anyway).
    b = b.subarray(0, end > 0 ? end : maxBytes);
  }
  return b.toString('utf8');
}

/** Parses robots.txt text. Never throws; any bytes give some (possibly empty) rule set. */
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
        // Not a rule for grouping (robots.cc ignores the line): it does not end a group's agents.
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

/** Does a normalised pattern (with `*` and a final `$`) match from the start of the path? */
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

/** The groups that apply to a product token: every group naming it, else every `*` group. */
function groupsFor(robots: RobotsTxt, token: string): Group[] {
  const t = token.toLowerCase();
  const specific = robots.groups.filter((g) => g.agents.includes(t));
  return specific.length > 0 ? specific : robots.groups.filter((g) => g.agents.includes('*'));
}

/**
 * The path and query of a URL as written (no fragment), as RFC 9309 matches it: as written
 * (escapes kept, hex upper-cased) and, when it differs, with its escaped unreserved characters
 * decoded. A rule matches if it matches either, so `Allow: /%62%61%7A` matches only a URL that
 * escapes those letters, and `Allow: /baz` matches both `/baz` and `/%62%61%7A`. The caller's
 * URL is used as given: nothing reordered, nothing stripped.
 */
export function robotsPaths(url: string): readonly string[] {
  const u = new URL(url);
  const written = `${u.pathname || '/'}${u.search}`;
  const raw = normalisePath(written);
  const decoded = normalisePath(written, true);
  return decoded === raw ? [raw] : [raw, decoded];
}

/**
 * RFC 9309 §2.2.2: the longest matching rule (by pattern length) decides; Allow wins a tie;
 * no match allows. Groups of the same agent count as one.
 */
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

/** Crawl-delay (seconds) of the groups that apply, if any sets one (not in RFC 9309; widely used). */
export function crawlDelayFor(robots: RobotsTxt, token: string): number | undefined {
  let d: number | undefined;
  for (const g of groupsFor(robots, token))
    if (g.crawlDelaySec !== undefined) d = Math.max(d ?? 0, g.crawlDelaySec);
  return d;
}

/** The product token of a User-Agent header: its first word, up to `/` or whitespace. */
export function productToken(userAgent: string): string {
  return (userAgent.trim().split(/[/\s]/)[0] ?? '').toLowerCase();
}
