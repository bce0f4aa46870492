import type { z } from 'zod';
import { checkBackoffOptions } from '../core/backoff.js';
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

interface ControlSections {
  readonly concurrency: ConcurrencySection;
  readonly breaker: BreakerSection;
  readonly hostBackoff: HostBackoffSection;
  readonly retry: RetrySection;
}

/**
 * Runs the control-plane algorithms' own validators on the config (the bounds live with the
 * algorithms, in src/core): a value the schema's types allow but an algorithm would refuse at
 * start (`increase: 0.5`, `initialPauseMs` over `maxPauseMs`) is a config error naming the field,
 * found by check-config, instead of an exception at start-up.
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

const RANGE = /^Expected `([^`]+)` to be (.+)$/s;
const ORDER = /^Expected `([^`]+)` \((.+)\) to be <= `([^`]+)` \((.+)\)$/s;

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
    const key = (name: string) => keys[name] ?? name;
    const order = ORDER.exec(err.message);
    const range = order ? undefined : RANGE.exec(err.message);
    const [name, message] = order
      ? [order[1]!, `must be <= ${section}.${key(order[3]!)} (${order[4]}), got ${order[2]}`]
      : range
        ? [range[1]!, `must be ${range[2]}`]
        : [undefined, err.message];
    const path = name === undefined ? [section] : [section, ...key(name).split('.')];
    ctx.addIssue({ code: 'custom', path, message });
  }
}
