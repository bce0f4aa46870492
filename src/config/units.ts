import { z } from 'zod';
import { MAX_TIMER_MS } from '../core/clock.js';

/**
 * Durations in the config, in milliseconds. Those that become a timer are capped at Node's
 * largest timer (2^31-1 ms, 24.8 days): past it, setTimeout fires after 1 ms instead.
 */
export const ms = z.number().int().nonnegative().max(MAX_TIMER_MS);
export const positiveMs = z.number().int().positive().max(MAX_TIMER_MS);
