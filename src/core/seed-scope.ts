/** Default job scope: the seeds' hosts and www twins, or with `sameSite` their registrable domains (PSL, private section too). */
import { isIP } from 'node:net';
import { getDomain } from 'tldts';

function split(host: string): { name: string; port: string } {
  const url = new URL(`http://${host}`);
  return { name: url.hostname, port: url.port ? `:${url.port}` : '' };
}

const isIpHost = (hostname: string): boolean => isIP(hostname.replace(/^\[|\]$/g, '')) !== 0;

export function wwwTwin(hostname: string): string | undefined {
  if (isIpHost(hostname) || !hostname.includes('.')) return undefined;
  if (hostname.startsWith('www.')) {
    const apex = hostname.slice(4);
    return apex.includes('.') ? apex : undefined;
  }
  return `www.${hostname}`;
}

export function siteOf(hostname: string): string {
  return getDomain(hostname, { allowPrivateDomains: true }) ?? hostname;
}

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
