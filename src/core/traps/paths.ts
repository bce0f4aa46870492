/** Path rules that need no fetch: repeated segment runs (Heritrix's PathologicalPath) and too many segments. */

/** Reused: this runs on every link. */
let bounds = new Int32Array(128);

function segmentBounds(path: string, from: number, to: number): number {
  let n = 0;
  let at = path.indexOf('/', from);
  while (at >= 0 && at < to) {
    const next = path.indexOf('/', at + 1);
    const end = next < 0 || next > to ? to : next;
    // A trailing '/' ends no segment.
    if (end > at + 1 || end < to) {
      if (2 * n + 2 > bounds.length) {
        const grown = new Int32Array(bounds.length * 2);
        grown.set(bounds);
        bounds = grown;
      }
      bounds[2 * n] = at + 1;
      bounds[2 * n + 1] = end;
      n++;
    }
    at = end < to ? end : -1;
  }
  return n;
}

function sameSegment(path: string, a: number, b: number): boolean {
  const aStart = bounds[2 * a] as number;
  const len = (bounds[2 * a + 1] as number) - aStart;
  const bStart = bounds[2 * b] as number;
  if ((bounds[2 * b + 1] as number) - bStart !== len) return false;
  for (let k = 0; k < len; k++) if (path.charCodeAt(aStart + k) !== path.charCodeAt(bStart + k)) return false;
  return true;
}

/** Reads path[from, to) in place; no string is cut. */
export function hasRepeatedRun(path: string, maxRepeats: number, from = 0, to = path.length): boolean {
  const times = maxRepeats + 1;
  const n = segmentBounds(path, from, to);
  for (let len = 1; len * times <= n; len++) {
    for (let start = 0; start + len * times <= n; start++) {
      let run = 1;
      for (let at = start + len; at + len <= n && run < times; at += len) {
        if (!sameRun(path, start, at, len)) break;
        run++;
      }
      if (run >= times) return true;
    }
  }
  return false;
}

function sameRun(path: string, a: number, b: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (!sameSegment(path, a + k, b + k)) return false;
  return true;
}

/** `/a/b/` and `/a/b` have 2. */
export function segmentCount(path: string): number {
  let n = 0;
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) n++;
  return path.endsWith('/') ? n - 1 : n;
}

export function isPathPrefix(shorter: string, longer: string): boolean {
  if (shorter.length >= longer.length || !longer.startsWith(shorter)) return false;
  return shorter.endsWith('/') || longer[shorter.length] === '/';
}

/** Relative links resolve against the directory, so `/docs/docs/` leads further down; `/index.html` does not. */
export function isDeeperPath(shorter: string, longer: string): boolean {
  return isPathPrefix(shorter, longer) && longer.lastIndexOf('/') >= shorter.length;
}
