/**
 * crawld's soft-404 probe (docs/traps.md): once a host has served 10 HTML pages, one request for
 * a random path that cannot exist. Tests that count a site's page requests leave it out, as they
 * leave out robots.txt; tests of the probe itself look for it.
 */
export const SOFT_404_PROBE = /^\/crawld-404-probe-[0-9a-f]{16}$/;

/** Whether a request path is a page request: not robots.txt, not the soft-404 probe. */
export function isPageRequest(path: string): boolean {
  return path !== '/robots.txt' && !SOFT_404_PROBE.test(path);
}
