/**
 * The hosts a job crawls when its config names none: its seeds' hosts and their `www.`/apex
 * twins, or with `sameSite` every host of the seeds' registrable domains (the Public Suffix
 * List, through tldts, private section included: `a.github.io` and `b.github.io` are two
 * sites, as browsers treat them). Pure: no I/O.
 */
import { isIP } from 'node:net';
import { getDomain } from 'tldts';

function split(host: string): { name: string; port: string } {
  const url = new URL(`http://${host}`);
  return { name: url.hostname, port: url.port ? `:${url.port}` : '' };
}

const isIpHost = (hostname: string): boolean => isIP(hostname.replace(/^\[|\]$/g, '')) !== 0;

/** `www.shop.test` for `shop.test` and the reverse; none for IPs and single labels. */
export function wwwTwin(hostname: string): string | undefined {
  if (isIpHost(hostname) || !hostname.includes('.')) return undefined;
  if (hostname.startsWith('www.')) {
    const apex = hostname.slice(4);
    return apex.includes('.') ? apex : undefined;
  }
  return `www.${hostname}`;
}

/** The registrable domain ("site") of a hostname, or the hostname itself (IPs, `localhost`). */
export function siteOf(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

/**
 * Scope host patterns for seed hosts (`URL.host` values: with the port when not the
 * default, which the patterns then keep).
 */
export function seedScopeHosts(seedHosts: readonly string[], sameSite: boolean): string[] {
  const out = new Set<string>();
  for (const host of seedHosts) {
    const { name, port } = split(host);
    if (sameSite) {
      out.add(isIpHost(name) ? host : `*.${siteOf(name)}${port}`);
      continue;
    }
    out.add(host);
    const twin = wwwTwin(name);
    if (twin !== undefined) out.add(`${twin}${port}`);
  }
  return [...out];
}
