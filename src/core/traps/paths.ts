/**
 * Path rules that need no fetch: a run of segments that follows itself more than `maxRepeats`
 * times (`/docs/docs/docs/`, `/a/b/a/b/a/b/`: relative links resolved under a path the server
 * answers anyway), as Heritrix's PathologicalPathDecideRule (2 repetitions) and BUbiNG's
 * DuplicateSegmentsLessThan(3) refuse; and a path of more segments than a site is ever built
 * with (Heritrix's TooManyPathSegmentsDecideRule).
 */

/** The path's segments, without the empty one before the leading '/' (a trailing '/' ends none). */
function segmentsOf(path: string): string[] {
  const parts = path.split('/');
  parts.shift();
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Whether some run of 1 or more segments occurs more than `maxRepeats` times in a row. */
export function hasRepeatedRun(path: string, maxRepeats: number): boolean {
  const times = maxRepeats + 1;
  // Most paths are too short to repeat anything: no split for them (this runs on every link).
  if (segmentCount(path) < times) return false;
  const segs = segmentsOf(path);
  const n = segs.length;
  for (let len = 1; len * times <= n; len++) {
    for (let start = 0; start + len * times <= n; start++) {
      let run = 1;
      for (let at = start + len; at + len <= n && run < times; at += len) {
        if (!sameRun(segs, start, at, len)) break;
        run++;
      }
      if (run >= times) return true;
    }
  }
  return false;
}

function sameRun(segs: string[], a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (segs[a + k] !== segs[b + k]) return false;
  return true;
}

/** The number of segments of a path (`/a/b/` and `/a/b` have 2). */
export function segmentCount(path: string): number {
  let n = 0;
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) n++;
  return path.endsWith('/') ? n - 1 : n;
}

/** Whether `shorter` is a proper ancestor of `longer` as paths (`/docs/` of `/docs/docs/x`). */
export function isPathPrefix(shorter: string, longer: string): boolean {
  if (shorter.length >= longer.length || !longer.startsWith(shorter)) return false;
  return shorter.endsWith('/') || longer[shorter.length] === '/';
}

/**
 * Whether `longer` extends `shorter` (isPathPrefix) into a directory below `shorter`'s own.
 * Relative links resolve against a page's directory: the same page at `/docs/` and at
 * `/docs/docs/` leads further down at every visit, while `/` and `/index.html` (a directory and
 * its index file) resolve them alike and are one page under two names.
 */
export function isDeeperPath(shorter: string, longer: string): boolean {
  return isPathPrefix(shorter, longer) && longer.lastIndexOf('/') >= shorter.length;
}
