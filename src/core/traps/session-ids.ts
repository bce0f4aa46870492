/**
 * Session identifiers in URLs: names servers use to carry a session in the query (`?sid=...`),
 * in a path parameter (`/cart;jsessionid=...`) or in an ASP.NET cookieless segment
 * (`/(S(lit3py55t21z5v55vlm25s55))/page.aspx`). Every visit mints new ones, so a crawler that
 * keeps them in its dedupe key fetches the same pages forever. The key drops them; the URL on
 * the wire keeps them as the site wrote them.
 *
 * Heritrix's StripSessionIDs knows jsessionid, phpsessid, sid, aspsessionid and cfid/cftoken in
 * the query only; the path forms and the names below are what Java servlet containers
 * (`;jsessionid`), PHP (`PHPSESSID`, `session.name`), ColdFusion (`CFID`/`CFTOKEN`), ASP
 * (`ASPSESSIONIDxxxxxxxx`), ASP.NET (`ASP.NET_SessionId`, cookieless segments) and common shop
 * systems (osCommerce `osCsid`, xt:Commerce `XTCsid`, Zen Cart `zenid`) write.
 */

/** Names that are a session whatever their value (lower case). */
const SESSION_NAMES = new Set([
  'jsessionid',
  'phpsessid',
  'asp.net_sessionid',
  'aspsessionid',
  'cfid',
  'cftoken',
  'sessionid',
  'session_id',
  'session-id',
  'sessid',
  'sess_id',
  'zenid',
  'oscsid',
  'xtcsid',
]);

/**
 * `sid` is also a "section id" or "store id" on some sites (`?sid=3`): it is a session only
 * when its value looks minted, as Heritrix requires (it asks for exactly 32 characters; shorter
 * ones are common).
 */
const TOKEN_VALUE = /^[A-Za-z0-9_-]{8,}$/;

/** Whether a query or path parameter is a session id, by its (decoded) name and raw value. */
export function isSessionParam(name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (SESSION_NAMES.has(lower)) return true;
  // ASP classic appends 8 letters: ASPSESSIONIDQQGGQGPA.
  if (lower.startsWith('aspsessionid')) return true;
  return lower === 'sid' && TOKEN_VALUE.test(value);
}

/** ASP.NET cookieless state: `(S(...))`, `(A(...)S(...))`, `(X(1)S(...))`. */
const COOKIELESS_SEGMENT = /^\((?:[A-Za-z]\([^()/]*\))+\)$/;

/**
 * The path without session path parameters (`;jsessionid=...` in any segment, any case) and
 * ASP.NET cookieless segments. Other path parameters (`;v=2`, matrix parameters) are kept: they
 * may select a different resource.
 */
export function stripSessionPath(path: string): string {
  if (!path.includes(';') && !path.includes('(')) return path;
  const segments = path.split('/');
  const out: string[] = [];
  for (let k = 0; k < segments.length; k++) {
    const seg = segments[k] as string;
    // The first segment is the empty one before the leading '/'.
    if (k > 0 && COOKIELESS_SEGMENT.test(seg)) continue;
    out.push(seg.includes(';') ? stripSegmentParams(seg) : seg);
  }
  // A dropped last segment leaves the path ending in its parent: '/(S(x))' is '/'.
  const joined = out.join('/');
  return joined === '' ? '/' : joined;
}

function stripSegmentParams(segment: string): string {
  const parts = segment.split(';');
  const kept = [parts[0] as string];
  for (let k = 1; k < parts.length; k++) {
    const p = parts[k] as string;
    const eq = p.indexOf('=');
    const name = eq < 0 ? p : p.slice(0, eq);
    const value = eq < 0 ? '' : p.slice(eq + 1);
    if (!isSessionParam(safeDecode(name), value)) kept.push(p);
  }
  return kept.join(';');
}

function safeDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
