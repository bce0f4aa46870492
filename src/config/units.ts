import { z } from 'zod';
import {
  type Bound,
  describeBound,
  MS,
  NON_NEGATIVE_INT,
  POSITIVE_INT,
  POSITIVE_MS,
  showValue,
} from '../core/bound.js';

/**
 * A number option within its bound from the algorithm's table (src/core), as zod's own checks,
 * so tools that read a schema see the bounds (test/integration/config-bounds.test.ts walks them).
 */
export function numberIn(bound: Bound): z.ZodNumber {
  const words = describeBound(bound);
  const params = {
    abort: true,
    error: (issue: { input?: unknown; origin?: string; code?: string }) =>
      // zod's int() also refuses integers past 2^53-1, which no bound here reaches.
      issue.origin === 'int' && issue.code === 'too_big'
        ? `must be a safe integer (at most 2^53-1), got ${showValue(issue.input)}`
        : `must be ${words}, got ${showValue(issue.input)}`,
  };
  const { min, max, minExclusive, maxExclusive, integer } = bound;
  let n = z.number();
  if (integer) n = n.int(params);
  if (min !== undefined) n = minExclusive ? n.gt(min, params) : n.gte(min, params);
  if (max !== undefined) n = maxExclusive ? n.lt(max, params) : n.lte(max, params);
  return n;
}

/** Whole ms, capped at Node's largest timer (2^31-1 ms): past it, setTimeout fires after 1 ms. */
export const ms = numberIn(MS);
export const positiveMs = numberIn(POSITIVE_MS);
export const positiveInt = numberIn(POSITIVE_INT);
export const nonNegativeInt = numberIn(NON_NEGATIVE_INT);
/** A task priority: any integer (a Redis frontier narrows it, cross-checks.ts). */
export const priority = numberIn({ integer: true });
