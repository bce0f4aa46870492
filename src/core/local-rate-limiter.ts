import type { RateLimiter } from '../ports/rate-limiter.js';
import { POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';
import { InvalidArgumentError } from './errors.js';
import { LruMap } from './lru-map.js';
import { TokenBucket } from './token-bucket.js';

export interface RateRule {
  /** 'exact.host', '*.example.com' (apex included) or '*', without ':port', case-insensitive. */
  readonly hosts: string;
  readonly ratePerSec: number;
  /** @default max(1, ratePerSec) */
  readonly burst?: number;
}

export interface LocalRateLimiterOptions {
  /** One bucket shared by all keys. @default undefined */
  readonly global?: { readonly ratePerSec: number; readonly burst?: number };
  /** The first rule a host matches gives it its bucket. @default [] */
  readonly rules?: readonly RateRule[];
  /** @default 10000 */
  readonly maxKeys?: number;
}

export const localRateLimiterDefaults = {
  global: undefined,
  rules: [],
  maxKeys: 10_000,
} as const satisfies LocalRateLimiterOptions;

/** null: no rule matches (cached, so rules are matched once). */
type Entry = TokenBucket | null;

/** In-process token buckets. Forgetting an idle bucket is harmless: it would be full, as a new one is. */
export class LocalRateLimiter implements RateLimiter {
  readonly #clock: Clock;
  readonly #global: TokenBucket | undefined;
  readonly #rules: readonly { readonly match: (host: string) => boolean; readonly rule: RateRule }[];
  readonly #buckets: LruMap<string, Entry>;

  constructor(options: LocalRateLimiterOptions = {}, clock: Clock) {
    const o = { ...localRateLimiterDefaults, ...options };
    checkNumber('maxKeys', o.maxKeys, POSITIVE_INT);
    this.#clock = clock;
    this.#global = o.global ? new TokenBucket(o.global, clock) : undefined;
    this.#rules = o.rules.map((rule, i) => {
      // Validates ratePerSec and burst now, not at the first request.
      new TokenBucket(rule, clock);
      return { match: hostMatcher(rule.hosts, `rules[${i}].hosts`), rule };
    });
    this.#buckets = new LruMap(o.maxKeys);
  }

  take(key: string, n = 1): { ok: boolean; waitMs: number } {
    const host = this.#bucket(key);
    const waitMs = Math.max(host?.waitMs(n) ?? 0, this.#global?.waitMs(n) ?? 0);
    if (waitMs > 0) return { ok: false, waitMs };
    host?.tryTake(n);
    this.#global?.tryTake(n);
    return { ok: true, waitMs: 0 };
  }

  tryAcquire(key: string, n = 1): Promise<{ ok: boolean; waitMs: number }> {
    try {
      return Promise.resolve(this.take(key, n));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #bucket(key: string): TokenBucket | undefined {
    // No rules: no host has a bucket, and a broad crawl keeps no entry per host.
    if (this.#rules.length === 0) return undefined;
    const cached = this.#buckets.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const host = key.toLowerCase().replace(/:\d+$/, '');
    const rule = this.#rules.find((r) => r.match(host))?.rule;
    const bucket = rule ? new TokenBucket(rule, this.#clock) : null;
    this.#buckets.set(key, bucket);
    return bucket ?? undefined;
  }
}

export function hostMatcher(pattern: string, name = 'hosts'): (host: string) => boolean {
  const p = pattern.trim().toLowerCase();
  if (p === '*') return () => true;
  if (p.startsWith('*.')) {
    const apex = p.slice(2);
    if (apex === '' || apex.includes('*')) throw badPattern(name, pattern);
    return (host) => host === apex || host.endsWith(`.${apex}`);
  }
  if (p === '' || p.includes('*')) throw badPattern(name, pattern);
  return (host) => host === p;
}

function badPattern(name: string, pattern: string): InvalidArgumentError {
  return new InvalidArgumentError(
    `Expected \`${name}\` to be '*', '*.domain' or an exact host, got ${JSON.stringify(pattern)}`,
  );
}
