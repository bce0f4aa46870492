import { createRequire } from 'node:module';
import type { Clock } from '../../core/clock.js';
import { AbortedError } from '../../core/errors.js';
import { LruMap } from '../../core/lru-map.js';
import type { Fetcher } from '../../ports/fetcher.js';

interface Robot {
  isAllowed(url: string, ua?: string): boolean | undefined;
  getCrawlDelay(ua?: string): number | undefined;
  getSitemaps(): string[];
}
// robots-parser is CommonJS and its bundled typings describe an ES default export that does
// not exist at run time under NodeNext resolution: load it the CommonJS way.
const robotsParser = createRequire(import.meta.url)('robots-parser') as (url: string, text: string) => Robot;

export interface RobotsCacheOptions {
  readonly fetcher: Fetcher;
  readonly clock: Clock;
  /** Product token matched against User-agent lines. */
  readonly userAgent: string;
  /** @default 86400000 (24 h) */
  readonly ttlMs?: number;
  /** How long a robots.txt that could not be fetched (5xx, network) counts as allow-all. @default 600000 */
  readonly failureTtlMs?: number;
  /** @default 10000 */
  readonly maxHosts?: number;
  /** robots.txt larger than this is treated as allow-all (Google reads the first 500 KiB). @default 512000 */
  readonly maxBytes?: number;
  /** Called with the Crawl-delay (ms) each time a host's robots.txt is (re)loaded. */
  readonly onCrawlDelay?: (host: string, delayMs: number) => void;
  /** Called with the Sitemap: URLs each time a host's robots.txt is (re)loaded. */
  readonly onSitemaps?: (host: string, urls: readonly string[]) => void;
}

interface Entry {
  robot: Robot | undefined;
  expiresAt: number;
  loading?: Promise<void>;
}

/**
 * robots.txt per origin, cached with a TTL. One fetch per origin at a time: concurrent
 * checks for the same host wait for the same load. A missing file (4xx) allows all, as the
 * RFC 9309 says; an unreachable one (5xx, network error) allows all for a short time so a
 * flaky robots.txt cannot turn into a permanent skip of the whole site.
 */
export class RobotsCache {
  readonly #o: Required<Omit<RobotsCacheOptions, 'onCrawlDelay' | 'onSitemaps'>> &
    Pick<RobotsCacheOptions, 'onCrawlDelay' | 'onSitemaps'>;
  readonly #entries: LruMap<string, Entry>;
  readonly #token: string;

  constructor(options: RobotsCacheOptions) {
    this.#o = { ttlMs: 86_400_000, failureTtlMs: 600_000, maxHosts: 10_000, maxBytes: 512_000, ...options };
    this.#entries = new LruMap(this.#o.maxHosts, (e) => e.loading === undefined);
    this.#token = (options.userAgent.split(/[/\s]/)[0] ?? options.userAgent).toLowerCase();
  }

  /** True when the URL may be fetched. Never throws for what a server sends. */
  async isAllowed(url: string, signal?: AbortSignal): Promise<boolean> {
    const u = new URL(url);
    const origin = u.origin;
    let entry = this.#entries.get(origin);
    if (!entry || (entry.loading === undefined && entry.expiresAt <= this.#o.clock.now())) {
      const fresh: Entry = { robot: undefined, expiresAt: 0 };
      fresh.loading = this.#load(origin, u.host, fresh, signal).finally(() => {
        fresh.loading = undefined;
      });
      this.#entries.set(origin, fresh);
      entry = fresh;
    }
    if (entry.loading) await entry.loading;
    return entry.robot?.isAllowed(url, this.#token) ?? true;
  }

  async #load(origin: string, host: string, entry: Entry, signal?: AbortSignal): Promise<void> {
    const robotsUrl = `${origin}/robots.txt`;
    const now = this.#o.clock.now();
    try {
      const res = await this.#o.fetcher.fetch({ url: robotsUrl, signal });
      if (res.status >= 200 && res.status < 300 && res.body.length <= this.#o.maxBytes) {
        entry.robot = robotsParser(robotsUrl, res.body.toString('utf8'));
        entry.expiresAt = now + this.#o.ttlMs;
        const delaySec = entry.robot.getCrawlDelay(this.#token);
        this.#o.onCrawlDelay?.(host, typeof delaySec === 'number' && delaySec > 0 ? delaySec * 1000 : 0);
        const sitemaps = entry.robot.getSitemaps();
        if (sitemaps.length > 0) this.#o.onSitemaps?.(host, sitemaps);
        return;
      }
      entry.expiresAt = now + (res.status >= 400 && res.status < 500 ? this.#o.ttlMs : this.#o.failureTtlMs);
    } catch (err) {
      if (err instanceof AbortedError) throw err;
      entry.expiresAt = now + this.#o.failureTtlMs;
    }
  }
}
