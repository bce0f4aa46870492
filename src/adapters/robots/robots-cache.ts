import type { Clock } from '../../core/clock.js';
import {
  AbortedError,
  BlockedAddressError,
  ContentTypeError,
  FetchError,
  RedirectLoopError,
  TooManyRedirectsError,
} from '../../core/errors.js';
import { LruMap } from '../../core/lru-map.js';
import type { Fetcher } from '../../ports/fetcher.js';
import type { RobotsChecker, RobotsOutcome, RobotsVerdict } from '../../ports/robots.js';
import {
  crawlDelayFor,
  isAllowedBy,
  parseRobotsTxt,
  productToken,
  ROBOTS_MAX_BYTES,
  type RobotsTxt,
  robotsBodyText,
} from './robots-txt.js';

export { ROBOTS_OUTCOMES, type RobotsOutcome, type RobotsVerdict } from '../../ports/robots.js';
export const ROBOTS_UNREACHABLE: ReadonlySet<RobotsOutcome> = new Set([
  'rate_limited',
  'server_error',
  'network_error',
  'timeout',
]);

/** At 20,000 hosts × 2 pages, 10,000 entries fetched every robots.txt twice (docs/performance.md). */
export const ROBOTS_MAX_HOSTS = 50_000;

/** RFC 9309 §2.3.1.2: at least five consecutive redirects are followed. */
export const ROBOTS_MAX_REDIRECTS = 5;

export interface RobotsCacheOptions {
  readonly fetcher: Fetcher;
  readonly clock: Clock;
  /** Its product token is matched. */
  readonly userAgent: string;
  /** @default 86400000 */
  readonly ttlMs?: number;
  /** Unreachable: first refetch, doubling up to ttlMs. @default 30000 */
  readonly retryMs?: number;
  /**
   * Past it a host's entry may go, and its robots.txt is fetched again: more than the other
   * per-host maps (10,000), since forgetting costs the site a request (docs/scaling.md).
   * @default 50000
   */
  readonly maxHosts?: number;
  /** @default 512000 */
  readonly maxBytes?: number;
  readonly onCrawlDelay?: (host: string, delayMs: number) => void;
  readonly onSitemaps?: (host: string, urls: readonly string[]) => void;
  readonly onFetch?: (host: string, outcome: RobotsOutcome) => void;
}

interface Entry {
  readonly host: string;
  /** The rules in force: the last parsed copy; null = everything allowed (4xx); undefined = none yet. */
  rules: RobotsTxt | null | undefined;
  refetchAt: number;
  failures: number;
  unreachableSince?: number;
  lastOutcome?: RobotsOutcome;
  loading?: Promise<void>;
}

export interface UnreachableHost {
  readonly origin: string;
  readonly since: number;
  readonly retryAt: number;
  readonly outcome: RobotsOutcome;
  /** An earlier copy keeps applying (RFC 9309 §2.4); false: nothing on the host is fetched. */
  readonly usingCachedCopy: boolean;
}

/**
 * robots.txt per origin (RFC 9309 §2.3.1), one load at a time. 4xx allows all; 429, 5xx and
 * network failures make the host unreachable, its URLs deferred, an earlier copy applying (§2.4).
 */
export class RobotsCache implements RobotsChecker {
  readonly #o: Required<Omit<RobotsCacheOptions, 'onCrawlDelay' | 'onSitemaps' | 'onFetch'>> &
    Pick<RobotsCacheOptions, 'onCrawlDelay' | 'onSitemaps' | 'onFetch'>;
  readonly #entries: LruMap<string, Entry>;
  readonly #token: string;

  constructor(options: RobotsCacheOptions) {
    this.#o = {
      ttlMs: 86_400_000,
      retryMs: 30_000,
      maxHosts: ROBOTS_MAX_HOSTS,
      maxBytes: ROBOTS_MAX_BYTES,
      ...options,
    };
    this.#entries = new LruMap(this.#o.maxHosts, (e) => e.loading === undefined);
    this.#token = productToken(options.userAgent);
  }

  /** The URL as discovered, never rewritten. */
  async check(url: string, signal?: AbortSignal, userAgent?: string): Promise<RobotsVerdict> {
    const u = new URL(url);
    const origin = u.origin;
    let entry = this.#entries.get(origin);
    if (!entry) {
      entry = { host: u.host, rules: undefined, refetchAt: 0, failures: 0 };
      this.#entries.set(origin, entry);
    }
    if (entry.loading === undefined && entry.refetchAt <= this.#o.clock.now()) {
      const e = entry;
      e.loading = this.#load(origin, e, signal).finally(() => {
        e.loading = undefined;
      });
    }
    if (entry.loading) await entry.loading;
    if (entry.rules === undefined) {
      return { kind: 'unreachable', retryAt: entry.refetchAt, outcome: entry.lastOutcome ?? 'network_error' };
    }
    if (entry.rules === null) return { kind: 'allow' };
    const token = userAgent !== undefined ? productToken(userAgent) : this.#token;
    return isAllowedBy(entry.rules, token, url) ? { kind: 'allow' } : { kind: 'disallow' };
  }

  async isAllowed(url: string, signal?: AbortSignal): Promise<boolean> {
    return (await this.check(url, signal)).kind === 'allow';
  }

  unreachable(): UnreachableHost[] {
    const out: UnreachableHost[] = [];
    for (const [origin, e] of this.#entries.entries()) {
      if (e.unreachableSince === undefined || e.lastOutcome === undefined) continue;
      out.push({
        origin,
        since: e.unreachableSince,
        retryAt: e.refetchAt,
        outcome: e.lastOutcome,
        usingCachedCopy: e.rules !== undefined,
      });
    }
    return out;
  }

  async #load(origin: string, entry: Entry, signal?: AbortSignal): Promise<void> {
    const outcome = await this.#fetch(`${origin}/robots.txt`, entry, signal);
    const now = this.#o.clock.now();
    entry.lastOutcome = outcome;
    this.#o.onFetch?.(entry.host, outcome);
    if (!ROBOTS_UNREACHABLE.has(outcome)) {
      entry.failures = 0;
      entry.unreachableSince = undefined;
      entry.refetchAt = now + this.#o.ttlMs;
      return;
    }
    entry.failures++;
    entry.unreachableSince ??= now;
    entry.refetchAt = now + Math.min(this.#o.ttlMs, this.#o.retryMs * 2 ** Math.min(entry.failures - 1, 30));
  }

  /** Rethrows only our own abort. */
  async #fetch(robotsUrl: string, entry: Entry, signal?: AbortSignal): Promise<RobotsOutcome> {
    try {
      const res = await this.#o.fetcher.fetch({ url: robotsUrl, ...(signal ? { signal } : {}) });
      if (res.redirects.length > ROBOTS_MAX_REDIRECTS) {
        entry.rules = null;
        return 'too_many_redirects';
      }
      if (res.status >= 200 && res.status < 300) {
        const rules = parseRobotsTxt(robotsBodyText(res.body, this.#o.maxBytes));
        entry.rules = rules;
        const delaySec = crawlDelayFor(rules, this.#token);
        this.#o.onCrawlDelay?.(entry.host, delaySec !== undefined && delaySec > 0 ? delaySec * 1000 : 0);
        if (rules.sitemaps.length > 0) this.#o.onSitemaps?.(entry.host, rules.sitemaps);
        return 'parsed';
      }
      if (res.status === 429) return 'rate_limited';
      if (res.status >= 500) return 'server_error';
      // 4xx, and 1xx/3xx a fetcher did not follow: unavailable, everything allowed (§2.3.1.3).
      entry.rules = null;
      return 'unavailable';
    } catch (err) {
      if (err instanceof AbortedError) throw err;
      if (err instanceof TooManyRedirectsError || err instanceof RedirectLoopError) {
        entry.rules = null;
        return 'too_many_redirects';
      }
      if (err instanceof BlockedAddressError) {
        entry.rules = null;
        return 'blocked_address';
      }
      // A 2xx of a media type no robots.txt has (image/png): no rules published.
      if (err instanceof ContentTypeError) {
        entry.rules = null;
        return 'unavailable';
      }
      if (err instanceof FetchError && /timeout/.test(err.reason)) return 'timeout';
      // DNS failure, refused or reset connection: unreachable.
      return 'network_error';
    }
  }
}
