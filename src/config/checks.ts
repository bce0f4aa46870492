import type { z } from 'zod';
import { checkBackoffOptions } from '../core/backoff.js';
import { describeBound, showValue } from '../core/bound.js';
import { checkBreakerOptions } from '../core/breaker-policy.js';
import { systemClock, systemRandom } from '../core/clock.js';
import { InvalidArgumentError } from '../core/errors.js';
import { HostBackoff } from '../core/host-backoff.js';
import { loopLimitSettings } from '../core/limit/loop-limit.js';
import { HostLimiters } from '../core/limiter.js';
import {
  AIMD_KEYS,
  aimdOptionsOf,
  BREAKER_KEYS,
  type BreakerSection,
  breakerOptionsOf,
  type ConcurrencySection,
  type HostBackoffSection,
  LOOP_KEYS,
  loopLimitOptionsOf,
  RETRY_KEYS,
  type RetrySection,
  retryBackoffOf,
} from './control-options.js';
import { formatPath } from './issues.js';

interface ControlSections {
  readonly concurrency: ConcurrencySection;
  readonly breaker: BreakerSection;
  readonly hostBackoff: HostBackoffSection;
  readonly retry: RetrySection;
}

/**
 * The control-plane algorithms' own validators on the config: a value they would refuse at start
 * (`increase: 0.5`) is a config error naming the field, found by check-config.
 */
export function controlIssues(config: ControlSections, ctx: z.RefinementCtx): void {
  const c = config.concurrency;
  check(
    ctx,
    'concurrency',
    AIMD_KEYS,
    () => new HostLimiters({ globalMaxInflight: c.global, aimd: aimdOptionsOf(c) }, systemClock),
  );
  const loop = loopLimitOptionsOf(c);
  if (loop) check(ctx, 'concurrency', LOOP_KEYS, () => loopLimitSettings(loop));
  check(ctx, 'breaker', BREAKER_KEYS, () => checkBreakerOptions(breakerOptionsOf(config.breaker)));
  check(ctx, 'hostBackoff', {}, () => new HostBackoff(config.hostBackoff, systemClock, systemRandom));
  check(ctx, 'retry', RETRY_KEYS, () => checkBackoffOptions(retryBackoffOf(config.retry)));
}

function check(
  ctx: z.RefinementCtx,
  section: string,
  keys: Readonly<Record<string, string>>,
  validate: () => unknown,
): void {
  try {
    validate();
  } catch (err) {
    if (!(err instanceof InvalidArgumentError)) throw err;
    ctx.addIssue({ code: 'custom', ...argumentIssue(err, section, keys) });
  }
}

/**
 * The field and message of a validator's refusal; `keys` maps an algorithm's option name to
 * its config key where they differ ("must be an integer in [1, breaker.rollingWindowMs (5)]").
 */
export function argumentIssue(
  err: InvalidArgumentError,
  section: string,
  keys: Readonly<Record<string, string>>,
): { path: PropertyKey[]; message: string } {
  const path = (option: string): PropertyKey[] => [section, ...(keys[option] ?? option).split('.')];
  if (err.option === undefined) return { path: [section], message: err.message };
  const got = `got ${showValue(err.value)}`;
  if (err.bound)
    return {
      path: path(err.option),
      message: `must be ${describeBound(err.bound, (o) => formatPath(path(o)))}, ${got}`,
    };
  if (err.oneOf) return { path: path(err.option), message: `must be one of ${err.oneOf.join(', ')}, ${got}` };
  return { path: path(err.option), message: err.message };
}
