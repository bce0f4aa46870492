/**
 * A task's URL as stored (the key names the host): `https://HOST/path` as `/path`, `http://HOST/path`
 * as `h/path`, anything else whole (a URL never begins with `/` or `h/`).
 */
export function packUrl(url: string, host: string): string {
  const n = host.length;
  if (url.startsWith('https://') && url.startsWith(host, 8) && url.charCodeAt(8 + n) === 47)
    return url.slice(8 + n);
  if (url.startsWith('http://') && url.startsWith(host, 7) && url.charCodeAt(7 + n) === 47)
    return `h${url.slice(7 + n)}`;
  return url;
}

export function unpackUrl(stored: string, host: string): string {
  if (stored.charCodeAt(0) === 47) return `https://${host}${stored}`;
  if (stored.startsWith('h/')) return `http://${host}${stored.slice(1)}`;
  return stored;
}
