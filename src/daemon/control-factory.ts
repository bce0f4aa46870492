import { OpossumHostBreakers } from '../adapters/breaker/opossum-breaker.js';
import { poolPages } from '../adapters/fetch/browser/browser-options.js';
import type { CrawldConfig } from '../config/config.js';
import { aimdOptionsOf, breakerOptionsOf } from '../config/control-options.js';
import type { Clock, Random } from '../core/clock.js';
import { HostBackoff } from '../core/host-backoff.js';
import { PolicyHostBreakers } from '../core/host-breakers.js';
import { AimdLimit } from '../core/limit/aimd.js';
import { FixedLimit } from '../core/limit/fixed.js';
import { renderLimitOptions } from '../core/limit/render-limit.js';
import { HostLimiters } from '../core/limiter.js';
import { LocalRateLimiter, type LocalRateLimiterOptions } from '../core/local-rate-limiter.js';
import { AdaptiveControlPlane } from '../engine/control/adaptive-control-plane.js';
import type { HostBreakerRegistry } from '../ports/breaker.js';
import type { FetcherKind } from '../ports/control-plane.js';
import type { SyncRateLimiter } from '../ports/rate-limiter.js';

/**
 * `createRateLimiter`: shared buckets (a Redis frontier's daemons share the limits); `startLimit`:
 * a new host's adaptive limit from what the other daemons found (start-limits.ts).
 */
export function createControlPlane(
  config: CrawldConfig,
  clock: Clock,
  random: Random,
  createRateLimiter?: (options: LocalRateLimiterOptions) => SyncRateLimiter,
  startLimit?: (host: string, kind: FetcherKind) => number | undefined,
) {
  const c = config.concurrency;
  const aimd = aimdOptionsOf(c);
  // A render host's limit starts from the browser pool's capacity (render-limit.ts).
  const render = renderLimitOptions(aimd, poolPages(config.fetch.browser.maxPages));
  const limiters = new HostLimiters(
    {
      globalMaxInflight: c.global,
      aimd,
      createLimit: c.adaptive
        ? (_host, kind, start) => new AimdLimit(kind === 'browser' ? render : aimd, clock, start)
        : () => new FixedLimit(c.maxPerHost),
      ...(startLimit ? { startLimit } : {}),
    },
    clock,
  );
  const rateOptions: LocalRateLimiterOptions = {
    ...(config.rateLimits.global ? { global: config.rateLimits.global } : {}),
    rules: config.rateLimits.hosts,
  };
  const rate = createRateLimiter ? createRateLimiter(rateOptions) : new LocalRateLimiter(rateOptions, clock);
  const b = config.breaker;
  const breakerOptions = breakerOptionsOf(b);
  const breakers: HostBreakerRegistry =
    b.implementation === 'opossum'
      ? new OpossumHostBreakers(breakerOptions)
      : new PolicyHostBreakers(breakerOptions, clock);
  const backoff = new HostBackoff(config.hostBackoff, clock, random);
  const control = new AdaptiveControlPlane({
    clock,
    limiters,
    rate,
    backoff,
    breakers,
    minDelayMs: config.politeness.minDelayMs,
  });
  return { control, limiters, breakers };
}
