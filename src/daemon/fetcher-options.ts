import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import { rootCertificates } from 'node:tls';
import type { UndiciFetcherOptions } from '../adapters/fetch/fetch-options.js';
import { type ProxySettings, proxyIndexes, proxySettingsFromEnv } from '../adapters/fetch/proxy.js';
import { staticLookup } from '../adapters/fetch/static-lookup.js';
import type { CrawldConfig } from '../config/config.js';
import { listenerDenyKeys } from '../core/address.js';

/** Page and sitemap fetchers share it. */
export function fetcherOptions(
  config: Pick<CrawldConfig, 'fetch' | 'concurrency'>,
  env: NodeJS.ProcessEnv = process.env,
): UndiciFetcherOptions {
  const { fetch } = config;
  return {
    userAgent: fetch.userAgent,
    connectTimeoutMs: fetch.connectTimeoutMs,
    headersTimeoutMs: fetch.headersTimeoutMs,
    bodyTimeoutMs: fetch.bodyTimeoutMs,
    totalTimeoutMs: fetch.totalTimeoutMs,
    maxBodyBytes: fetch.maxBodyBytes,
    maxDecodedBytes: fetch.maxDecodedBytes,
    maxRedirects: fetch.maxRedirects,
    maxRefreshDelaySeconds: fetch.maxRefreshDelaySeconds,
    // A pool narrower than the host's limit queues requests inside undici, where the time
    // counts as the host's latency and the adaptive limit cuts for it.
    connectionsPerHost: fetch.connectionsPerHost ?? config.concurrency.maxPerHost,
    acceptContentTypes: fetch.acceptContentTypes,
    addressPolicy: {
      allowPrivateNetworks: fetch.allowPrivateNetworks,
      allow: fetch.allowAddresses,
    },
    ...(fetch.tls.ca !== undefined ? { ca: trustedCas(fetch.tls.ca) } : {}),
    ...(Object.keys(fetch.resolve).length > 0 ? { lookup: staticLookup(fetch.resolve) } : {}),
    proxy: proxySettings(fetch.proxy, env),
  };
}

/**
 * crawld's own listener, refused to every fetch of the crawl, browser subresources included; a
 * listener on a wildcard address is reachable at every local address.
 */
export function listenerDeny(url: string | undefined): Set<string> | undefined {
  if (url === undefined) return undefined;
  const { hostname, port } = new URL(url);
  const host = hostname.replace(/^\[|\]$/g, '');
  const loopback = ['127.0.0.1', '::1'];
  const ips =
    host === '0.0.0.0' || host === '::' || host === ''
      ? [
          ...loopback,
          ...Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address)),
        ]
      : host === 'localhost'
        ? loopback
        : [host];
  return listenerDenyKeys(ips, Number(port));
}

/** Indexed after fetch.proxy's. */
export function jobProxies(config: Pick<CrawldConfig, 'jobs'>): string[] {
  return config.jobs.flatMap((j) =>
    j.proxy === undefined || j.proxy === false ? [] : typeof j.proxy === 'string' ? [j.proxy] : j.proxy,
  );
}

/** The metrics' proxy labels 0..n-1. */
export function proxyCount(options: UndiciFetcherOptions): number {
  return proxyIndexes(options.proxy, options.extraProxies).size;
}

function proxySettings(proxy: string | string[] | false | undefined, env: NodeJS.ProcessEnv): ProxySettings {
  if (proxy === undefined) return proxySettingsFromEnv(env);
  const list = proxy === false ? [] : typeof proxy === 'string' ? [proxy] : proxy;
  return { http: list, https: list, noProxy: [] };
}

/**
 * A `ca` list replaces Node's trust store: with Node's roots and NODE_EXTRA_CA_CERTS, a private
 * CA is trusted besides the public ones, not instead of them.
 */
function trustedCas(file: string): string[] {
  const extra = process.env.NODE_EXTRA_CA_CERTS;
  const read = (path: string) => {
    try {
      return [readFileSync(path, 'utf8')];
    } catch {
      return [];
    }
  };
  return [...rootCertificates, ...(extra ? read(extra) : []), readFileSync(file, 'utf8')];
}
