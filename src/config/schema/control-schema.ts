import { z } from 'zod';
import { BACKOFF_BOUNDS, backoffDefaults } from '../../core/backoff.js';
import { BREAKER_BOUNDS, breakerPolicyDefaults } from '../../core/breaker-policy.js';
import { HOST_BACKOFF_BOUNDS, hostBackoffDefaults } from '../../core/host-backoff.js';
import { AIMD_BOUNDS, AIMD_TARGET_BOUNDS, aimdDefaults } from '../../core/limit/aimd.js';
import { LOOP_LIMIT_BOUNDS, loopLimitDefaults } from '../../core/limit/loop-limit.js';
import { HOST_LIMITERS_BOUNDS, hostLimitersDefaults } from '../../core/limiter.js';
import { RETRY_AFTER_BOUNDS, retryAfterDefaults } from '../../core/retry-after.js';
import { TOKEN_BUCKET_BOUNDS } from '../../core/token-bucket.js';
import { ms, numberIn, positiveInt, positiveMs } from '../units.js';
import { hostPattern } from './common-schema.js';

/**
 * The control plane's sections (docs/control-plane.md). Bounds and defaults come from each
 * algorithm's table in src/core; checks.ts runs the algorithms' own validators on the result.
 */

export const concurrencySchema = z
  .strictObject({
    global: numberIn(HOST_LIMITERS_BOUNDS.globalMaxInflight).default(hostLimitersDefaults.globalMaxInflight),
    /** Lower the global limit while the event loop is saturated (core/limit/loop-limit.ts). */
    globalAdaptive: z.boolean().default(true),
    minGlobal: numberIn(LOOP_LIMIT_BOUNDS.minLimit).default(loopLimitDefaults.minLimit),
    loopLagTargetMs: numberIn(LOOP_LIMIT_BOUNDS.targetLagMs).default(loopLimitDefaults.targetLagMs),
    maxPerHost: numberIn(AIMD_BOUNDS.maxLimit).default(aimdDefaults.maxLimit),
    minPerHost: numberIn(AIMD_BOUNDS.minLimit).default(aimdDefaults.minLimit),
    initialPerHost: numberIn(AIMD_BOUNDS.initialLimit).default(aimdDefaults.initialLimit),
    adaptive: z.boolean().default(true),
    /** Latency target: relative to the host's measured baseline, or absolute. */
    target: z
      .discriminatedUnion('kind', [
        z.strictObject({
          kind: z.literal('relative'),
          ratio: numberIn(AIMD_TARGET_BOUNDS.ratio).default(aimdDefaults.target.ratio),
          minMarginMs: numberIn(AIMD_TARGET_BOUNDS.minMarginMs).default(aimdDefaults.target.minMarginMs),
          minRttWindowMs: numberIn(AIMD_TARGET_BOUNDS.minRttWindowMs).default(
            aimdDefaults.target.minRttWindowMs,
          ),
          probeLimit: numberIn(AIMD_TARGET_BOUNDS.probeLimit).default(aimdDefaults.target.probeLimit),
        }),
        z.strictObject({ kind: z.literal('absolute'), latencyMs: numberIn(AIMD_TARGET_BOUNDS.latencyMs) }),
      ])
      .prefault({ kind: 'relative' }),
    increase: numberIn(AIMD_BOUNDS.increase).default(aimdDefaults.increase),
    /** Growth after slow start: to limit × target / latency, at most × this. */
    maxGrowthRatio: numberIn(AIMD_BOUNDS.maxGrowthRatio).default(aimdDefaults.maxGrowthRatio),
    backoffRatio: numberIn(AIMD_BOUNDS.backoffRatio).default(aimdDefaults.backoffRatio),
    percentile: numberIn(AIMD_BOUNDS.percentile).default(aimdDefaults.percentile),
    windowMs: numberIn(AIMD_BOUNDS.windowMs).default(aimdDefaults.windowMs),
    minWindowSamples: numberIn(AIMD_BOUNDS.minWindowSamples).default(aimdDefaults.minWindowSamples),
    maxLagFraction: numberIn(AIMD_BOUNDS.maxLagFraction).default(aimdDefaults.maxLagFraction),
    /** Dead band above the target: holds the limit instead of cutting it on noise. */
    tolerance: numberIn(AIMD_BOUNDS.tolerance).default(aimdDefaults.tolerance),
    /** Double each host's limit per window under target until its first cut. */
    slowStart: z.boolean().default(aimdDefaults.slowStart),
    slowStartWindowMs: numberIn(AIMD_BOUNDS.slowStartWindowMs).default(aimdDefaults.slowStartWindowMs),
  })
  .prefault({});

export const rateLimitsSchema = z
  .strictObject({
    global: z
      .strictObject({
        ratePerSec: numberIn(TOKEN_BUCKET_BOUNDS.ratePerSec),
        burst: numberIn(TOKEN_BUCKET_BOUNDS.burst).optional(),
      })
      .optional(),
    /** The first rule whose pattern matches a host applies to it. */
    hosts: z
      .array(
        z.strictObject({
          hosts: hostPattern,
          ratePerSec: numberIn(TOKEN_BUCKET_BOUNDS.ratePerSec),
          burst: numberIn(TOKEN_BUCKET_BOUNDS.burst).optional(),
        }),
      )
      .default([]),
  })
  .prefault({});

export const breakerSchema = z
  .strictObject({
    implementation: z.enum(['policy', 'opossum']).default('policy'),
    errorThresholdPercentage: numberIn(BREAKER_BOUNDS.errorThresholdPercentage).default(
      breakerPolicyDefaults.errorThresholdPercentage,
    ),
    rollingWindowMs: numberIn(BREAKER_BOUNDS.rollingCountTimeoutMs).default(
      breakerPolicyDefaults.rollingCountTimeoutMs,
    ),
    rollingBuckets: numberIn(BREAKER_BOUNDS.rollingCountBuckets).default(
      breakerPolicyDefaults.rollingCountBuckets,
    ),
    volumeThreshold: numberIn(BREAKER_BOUNDS.volumeThreshold).default(breakerPolicyDefaults.volumeThreshold),
    /** Opens after this many failures in a row (0: the rate rule only). */
    consecutiveFailures: numberIn(BREAKER_BOUNDS.consecutiveFailures).default(
      breakerPolicyDefaults.consecutiveFailures,
    ),
    /** Open time after a first trip; doubled per consecutive trip up to maxResetTimeoutMs. */
    resetTimeoutMs: numberIn(BREAKER_BOUNDS.resetTimeoutMs).default(breakerPolicyDefaults.resetTimeoutMs),
    maxResetTimeoutMs: numberIn(BREAKER_BOUNDS.maxResetTimeoutMs).default(
      breakerPolicyDefaults.maxResetTimeoutMs,
    ),
    halfOpenMaxProbes: numberIn(BREAKER_BOUNDS.halfOpenMaxProbes).default(
      breakerPolicyDefaults.halfOpenMaxProbes,
    ),
  })
  .prefault({});

export const hostBackoffSchema = z
  .strictObject({
    initialPauseMs: numberIn(HOST_BACKOFF_BOUNDS.initialPauseMs).default(hostBackoffDefaults.initialPauseMs),
    maxPauseMs: numberIn(HOST_BACKOFF_BOUNDS.maxPauseMs).default(hostBackoffDefaults.maxPauseMs),
    forgiveAfterMs: numberIn(HOST_BACKOFF_BOUNDS.forgiveAfterMs).default(hostBackoffDefaults.forgiveAfterMs),
  })
  .prefault({});

export const politenessSchema = z
  .strictObject({
    minDelayMs: ms.default(0),
    robotsTtlMs: positiveMs.default(86_400_000),
    /** First refetch of an unreachable robots.txt (429, 5xx, network); doubles up to robotsTtlMs. */
    robotsRetryMs: positiveMs.default(30_000),
    maxCrawlDelayMs: ms.default(60_000),
  })
  .prefault({});

export const retrySchema = z
  .strictObject({
    maxAttempts: positiveInt.default(4),
    baseDelayMs: numberIn(BACKOFF_BOUNDS.baseMs).default(backoffDefaults.baseMs),
    maxDelayMs: numberIn(BACKOFF_BOUNDS.maxMs).default(backoffDefaults.maxMs),
    retryAfterCapMs: numberIn(RETRY_AFTER_BOUNDS.maxMs).default(retryAfterDefaults.maxMs),
  })
  .prefault({});
