import type { UndiciFetcherOptions } from '../adapters/fetch/options.js';
import type { CrawldConfig } from './config.js';

/** The fetch section of the config as UndiciFetcher options (page and sitemap fetchers share it). */
export function fetcherOptions(fetch: CrawldConfig['fetch']): UndiciFetcherOptions {
  return {
    userAgent: fetch.userAgent,
    connectTimeoutMs: fetch.connectTimeoutMs,
    headersTimeoutMs: fetch.headersTimeoutMs,
    bodyTimeoutMs: fetch.bodyTimeoutMs,
    totalTimeoutMs: fetch.totalTimeoutMs,
    maxBodyBytes: fetch.maxBodyBytes,
    maxDecodedBytes: fetch.maxDecodedBytes,
    maxRedirects: fetch.maxRedirects,
    connectionsPerHost: fetch.connectionsPerHost,
    acceptContentTypes: fetch.acceptContentTypes,
    addressPolicy: {
      allowPrivateNetworks: fetch.allowPrivateNetworks,
      allow: fetch.allowAddresses,
    },
  };
}
