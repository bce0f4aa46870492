import type { UndiciFetcherOptions } from './fetch-options.js';
import { bypassesProxy, ProxyPool, type ProxyUse, proxyIndexes } from './proxy.js';

/**
 * Which proxy a request goes through (fetch.proxy, NO_PROXY, a job's own list), with one pool
 * per proxy list. A proxy's index (its metrics label) is fixed in order of first appearance.
 */
export class ProxyRouter {
  readonly #pools = new Map<string, ProxyPool>();
  readonly #index: Map<string, number>;

  readonly #o: UndiciFetcherOptions;

  constructor(o: UndiciFetcherOptions) {
    this.#o = o;
    this.#index = proxyIndexes(o.proxy, o.extraProxies);
  }

  /** The proxy a hop goes through, or undefined for a direct connection. */
  pick(url: URL, override: readonly string[] | false | undefined): ProxyUse | undefined {
    if (override === false) return undefined;
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const settings = this.#o.proxy;
    const urls = override ?? (url.protocol === 'https:' ? settings.https : settings.http);
    if (urls.length === 0) return undefined;
    if (override === undefined && bypassesProxy(settings.noProxy, url.hostname, port)) return undefined;
    const key = urls.join('\n');
    let pool = this.#pools.get(key);
    if (!pool) {
      for (const u of urls) if (!this.#index.has(u)) this.#index.set(u, this.#index.size);
      pool = new ProxyPool(
        urls,
        {
          connections: this.#o.connectionsPerHost,
          headersTimeout: this.#o.headersTimeoutMs,
          bodyTimeout: this.#o.bodyTimeoutMs,
          connectTimeoutMs: this.#o.connectTimeoutMs,
        },
        urls.map((u) => this.#index.get(u) ?? 0),
      );
      this.#pools.set(key, pool);
    }
    return pool.pick();
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((p) => p.close()));
  }
}
