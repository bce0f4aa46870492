/** Session ids in the query, path parameters or ASP.NET cookieless segments: dropped from the key, kept on the wire. */

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

/** `sid` is also a section or store id: a session only when its value looks minted. */
const TOKEN_VALUE = /^[A-Za-z0-9_-]{8,}$/;

export function isSessionParam(name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (SESSION_NAMES.has(lower)) return true;
  // ASP classic appends 8 letters: ASPSESSIONIDQQGGQGPA.
  if (lower.startsWith('aspsessionid')) return true;
  return lower === 'sid' && TOKEN_VALUE.test(value);
}

/** `(S(...))`, `(A(...)S(...))`, `(X(1)S(...))`. */
const COOKIELESS_SEGMENT = /^\((?:[A-Za-z]\([^()/]*\))+\)$/;

/** Other path parameters (`;v=2`) are kept: they may select another resource. */
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
