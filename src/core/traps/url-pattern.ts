/** Digit runs as `#` and sorted parameter names: an endless series' pages share one pattern. */
export function urlPattern(path: string, search: string, ignored?: (name: string) => boolean): string {
  const p = path.replace(/\d+/g, '#');
  if (search.length <= 1) return p;
  const names = new Set<string>();
  for (const pair of search.slice(1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = (eq < 0 ? pair : pair.slice(0, eq)).toLowerCase();
    if (ignored?.(name) !== true) names.add(name.replace(/\d+/g, '#'));
  }
  return names.size === 0 ? p : `${p}?${[...names].sort().join('&')}`;
}

export function splitKey(key: string): { host: string; path: string; search: string } {
  const hostStart = key.indexOf('//') + 2;
  let pathStart = key.indexOf('/', hostStart);
  if (pathStart < 0) pathStart = key.length;
  const authority = key.slice(hostStart, pathStart);
  const at = authority.lastIndexOf('@');
  const host = at < 0 ? authority : authority.slice(at + 1);
  const q = key.indexOf('?', pathStart);
  const path = pathStart === key.length ? '/' : key.slice(pathStart, q < 0 ? key.length : q);
  return { host, path, search: q < 0 ? '' : key.slice(q) };
}
