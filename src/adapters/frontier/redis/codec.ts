/** How a task record stores its URLs (lua/prelude.lua, task-record.ts): without what the key says. */

/**
 * A task's URL as stored: the key already names the host, so `https://HOST/path` is stored
 * as `/path` and `http://HOST/path` as `h/path` (saves the ~25 bytes of scheme and host per
 * record); any other URL (userinfo, an unusual form) is stored whole, which can never begin
 * with `/` or `h/` (a URL begins with its scheme and `:`). Dedupe compares packed forms,
 * which are a function of (url, host).
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
