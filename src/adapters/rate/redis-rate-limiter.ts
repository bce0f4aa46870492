/**
 * LocalRateLimiter's rules through Redis: the synchronous take() answers from a local cache of
 * shared tokens refilled `batch` at a time. Redis down: nothing rate-limited goes. docs/redis.md.
 */

import { POSITIVE_INT } from '../../core/bound.js';
import { checkNumber } from '../../core/check.js';
import type { Clock } from '../../core/clock.js';
import { InvalidArgumentError } from '../../core/errors.js';
import {
  hostMatcher,
  type LocalRateLimiterOptions,
  localRateLimiterDefaults,
  type RateRule,
} from '../../core/local-rate-limiter.js';
import { LruMap } from '../../core/lru-map.js';
import { TOKEN_BUCKET_BOUNDS } from '../../core/token-bucket.js';
import type { RateLimiter } from '../../ports/rate-limiter.js';
import type { RedisLike } from '../redis/redis-client.js';
import { type BucketSpec, defineTokenBucket, takeTokens } from './redis-token-bucket.js';

export interface RedisRateLimiterOptions extends LocalRateLimiterOptions {
  /** A connected ioredis client, owned by the caller (several limiters may share one). */
  readonly client: RedisLike;
  /** Namespace of the bucket keys; the frontier's prefix puts a host's bucket on its slot. @default 'crawld' */
  readonly keyPrefix?: string;
  /** Tokens fetched per round trip. @default ceil(ratePerSec / 10), at most burst: ~100 ms of tokens */
  readonly batch?: number;
  /** How long fetched tokens stay usable locally. @default max(50, batch × 1000 / ratePerSec) ms */
  readonly holdMs?: number;
  /** waitMs answered while a fetch is in flight. @default 2 */
  readonly pollMs?: number;
  /** waitMs answered after a failed fetch, and the pause before the next one. @default 1000 */
  readonly errorBackoffMs?: number;
  readonly onError?: (err: unknown) => void;
}

interface Cache {
  readonly key: string;
  readonly spec: BucketSpec;
  readonly batch: number;
  readonly holdMs: number;
  tokens: number;
  /** Monotonic ms: cached tokens dropped after; no fetch before (the bucket said wait, or Redis failed). */
  expiresAt: number;
  retryAt: number;
  fetching: Promise<void> | undefined;
}

export class RedisRateLimiter implements RateLimiter {
  readonly #o: RedisRateLimiterOptions;
  readonly #clock: Clock;
  readonly #prefix: string;
  readonly #global: Cache | undefined;
  readonly #rules: readonly { readonly match: (host: string) => boolean; readonly rule: RateRule }[];
  readonly #hosts: LruMap<string, Cache | null>;

  constructor(options: RedisRateLimiterOptions, clock: Clock) {
    const o = { ...localRateLimiterDefaults, ...options };
    checkNumber('maxKeys', o.maxKeys, POSITIVE_INT);
    if (o.batch !== undefined) checkNumber('batch', o.batch, POSITIVE_INT);
    this.#o = options;
    this.#clock = clock;
    this.#prefix = options.keyPrefix ?? 'crawld';
    defineTokenBucket(options.client);
    this.#global = o.global ? this.#cache(`{${this.#prefix}}:rate`, o.global) : undefined;
    this.#rules = o.rules.map((rule, i) => {
      this.#cache('validate', rule);
      return { match: hostMatcher(rule.hosts, `rules[${i}].hosts`), rule };
    });
    this.#hosts = new LruMap(o.maxKeys, (c) => c?.fetching === undefined);
  }

  /** LocalRateLimiter.take's contract: n from every bucket or from none. */
  take(key: string, n = 1): { ok: boolean; waitMs: number } {
    const caches = this.#cachesFor(key);
    const mono = this.#clock.monotonic();
    let waitMs = 0;
    for (const c of caches) {
      if (n > c.spec.burst)
        throw new InvalidArgumentError(`Expected \`n\` to be <= burst (${c.spec.burst}), got ${n}`);
      if (mono >= c.expiresAt) c.tokens = 0;
      if (c.tokens >= n) continue;
      this.#fetch(c, n);
      const wait = c.fetching ? (this.#o.pollMs ?? 2) : Math.max(1, Math.ceil(c.retryAt - mono));
      waitMs = Math.max(waitMs, wait);
    }
    if (waitMs > 0) return { ok: false, waitMs };
    for (const c of caches) {
      c.tokens -= n;
      if (c.tokens < n) this.#fetch(c, n); // refill ahead, so the next take finds tokens
    }
    return { ok: true, waitMs: 0 };
  }

  /** take(), but when the cache is empty it waits for the fetch in flight and tries once more. */
  async tryAcquire(key: string, n = 1): Promise<{ ok: boolean; waitMs: number }> {
    const first = this.take(key, n);
    if (first.ok) return first;
    await Promise.all(this.#cachesFor(key).map((c) => c.fetching));
    return this.take(key, n);
  }

  #cachesFor(key: string): Cache[] {
    let host = this.#hosts.get(key);
    if (host === undefined) {
      const bare = key.toLowerCase().replace(/:\d+$/, '');
      const rule = this.#rules.find((r) => r.match(bare))?.rule;
      // The key's own hash tag: the same slot as the frontier's queues for this host.
      host = rule ? this.#cache(`${this.#prefix}:{${key}}:rate`, rule) : null;
      this.#hosts.set(key, host);
    }
    return [host, this.#global].filter((c): c is Cache => c != null);
  }

  #cache(key: string, bucket: { readonly ratePerSec: number; readonly burst?: number }): Cache {
    const ratePerSec = checkNumber('ratePerSec', bucket.ratePerSec, TOKEN_BUCKET_BOUNDS.ratePerSec);
    const burst = checkNumber('burst', bucket.burst ?? Math.max(1, ratePerSec), TOKEN_BUCKET_BOUNDS.burst);
    const batch = Math.max(1, Math.min(Math.floor(burst), this.#o.batch ?? Math.ceil(ratePerSec / 10)));
    const holdMs = this.#o.holdMs ?? Math.max(50, (batch * 1000) / ratePerSec);
    return {
      key,
      spec: { ratePerSec, burst },
      batch,
      holdMs,
      tokens: 0,
      expiresAt: 0,
      retryAt: 0,
      fetching: undefined,
    };
  }

  #fetch(c: Cache, n: number): void {
    const mono = this.#clock.monotonic();
    if (c.fetching || mono < c.retryAt) return;
    const min = Math.max(1, Math.ceil(n - Math.max(0, c.tokens)));
    c.fetching = takeTokens(this.#o.client, c.key, this.#clock.now(), c.spec, Math.max(c.batch, min), min)
      .then(({ granted, waitMs }) => {
        const at = this.#clock.monotonic();
        if (granted > 0) {
          c.tokens = (at >= c.expiresAt ? 0 : c.tokens) + granted;
          c.expiresAt = at + c.holdMs;
        } else c.retryAt = at + waitMs;
      })
      .catch((err: unknown) => {
        c.retryAt = this.#clock.monotonic() + (this.#o.errorBackoffMs ?? 1000);
        this.#o.onError?.(err);
      })
      .finally(() => {
        c.fetching = undefined;
      });
  }
}
