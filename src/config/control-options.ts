import type { BreakerPolicyOptions } from '../core/breaker-policy.js';
import type { HostBackoffOptions } from '../core/host-backoff.js';
import type { AimdOptions } from '../core/limit/aimd.js';
import type { LoopLimitOptions } from '../core/limit/loop-limit.js';

/**
 * The config sections as the control-plane algorithms take them: one mapping for the composition
 * root and the schema's checks, so whatever check-config accepts also starts.
 */

export interface ConcurrencySection {
  readonly global: number;
  readonly globalAdaptive: boolean;
  readonly minGlobal: number;
  readonly loopLagTargetMs: number;
  readonly maxPerHost: number;
  readonly minPerHost: number;
  readonly initialPerHost: number;
  readonly increase: number;
  readonly maxGrowthRatio: number;
  readonly backoffRatio: number;
  readonly percentile: number;
  readonly windowMs: number;
  readonly minWindowSamples: number;
  readonly maxLagFraction: number;
  readonly tolerance: number;
  readonly slowStart: boolean;
  readonly slowStartWindowMs: number;
  readonly target: AimdOptions['target'];
}

export function aimdOptionsOf(c: ConcurrencySection): AimdOptions {
  return {
    // Clamped rather than refused: lowering maxPerHost alone must not make the defaults invalid.
    initialLimit: Math.min(c.initialPerHost, c.maxPerHost),
    minLimit: Math.min(c.minPerHost, c.maxPerHost),
    maxLimit: c.maxPerHost,
    increase: c.increase,
    maxGrowthRatio: c.maxGrowthRatio,
    backoffRatio: c.backoffRatio,
    percentile: c.percentile,
    windowMs: c.windowMs,
    minWindowSamples: c.minWindowSamples,
    maxLagFraction: c.maxLagFraction,
    tolerance: c.tolerance,
    slowStart: c.slowStart,
    slowStartWindowMs: c.slowStartWindowMs,
    ...(c.target !== undefined ? { target: c.target } : {}),
  };
}

/** The global limit's options (core/limit/loop-limit.ts); undefined when it is fixed. */
export function loopLimitOptionsOf(c: ConcurrencySection): LoopLimitOptions | undefined {
  if (!c.globalAdaptive) return undefined;
  return { maxLimit: c.global, minLimit: c.minGlobal, targetLagMs: c.loopLagTargetMs };
}

export const LOOP_KEYS: Readonly<Record<string, string>> = {
  maxLimit: 'global',
  minLimit: 'minGlobal',
  targetLagMs: 'loopLagTargetMs',
};

export const AIMD_KEYS: Readonly<Record<string, string>> = {
  initialLimit: 'initialPerHost',
  minLimit: 'minPerHost',
  maxLimit: 'maxPerHost',
  globalMaxInflight: 'global',
};

export interface BreakerSection {
  readonly errorThresholdPercentage: number;
  readonly rollingWindowMs: number;
  readonly rollingBuckets: number;
  readonly volumeThreshold: number;
  readonly consecutiveFailures: number;
  readonly resetTimeoutMs: number;
  readonly maxResetTimeoutMs: number;
  readonly halfOpenMaxProbes: number;
}

export function breakerOptionsOf(b: BreakerSection): Required<BreakerPolicyOptions> {
  return {
    errorThresholdPercentage: b.errorThresholdPercentage,
    rollingCountTimeoutMs: b.rollingWindowMs,
    rollingCountBuckets: b.rollingBuckets,
    volumeThreshold: b.volumeThreshold,
    consecutiveFailures: b.consecutiveFailures,
    resetTimeoutMs: b.resetTimeoutMs,
    maxResetTimeoutMs: b.maxResetTimeoutMs,
    halfOpenMaxProbes: b.halfOpenMaxProbes,
  };
}

export const BREAKER_KEYS: Readonly<Record<string, string>> = {
  rollingCountTimeoutMs: 'rollingWindowMs',
  rollingCountBuckets: 'rollingBuckets',
};

export type HostBackoffSection = Pick<HostBackoffOptions, 'initialPauseMs' | 'maxPauseMs' | 'forgiveAfterMs'>;

export interface RetrySection {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export function retryBackoffOf(r: RetrySection): { baseMs: number; maxMs: number } {
  // A maxDelayMs under baseDelayMs means "no growth", not an error.
  return { baseMs: r.baseDelayMs, maxMs: Math.max(r.baseDelayMs, r.maxDelayMs) };
}

export function retryPolicyOptions(r: RetrySection & { maxAttempts: number; retryAfterCapMs: number }) {
  return { maxAttempts: r.maxAttempts, backoff: retryBackoffOf(r), retryAfterCapMs: r.retryAfterCapMs };
}

export const RETRY_KEYS: Readonly<Record<string, string>> = { baseMs: 'baseDelayMs', maxMs: 'maxDelayMs' };
