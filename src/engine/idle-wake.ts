/**
 * What an idle scheduler (nothing buffered, in flight or ready) does next: sleep until the
 * next delayed task or the idle poll, or, in a `--once` run with no work left, finish.
 */
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { Frontier } from '../ports/frontier.js';
import type { SchedulerOptions } from './scheduler-options.js';

/**
 * Milliseconds until the scheduler should look again (Infinity: when kicked), or 'finished'.
 * `held` hears whether the frontier holds any task (leased, delayed or ready) at all.
 */
export async function idleWake(
  frontier: Frontier,
  clock: Clock,
  events: CrawlEmitter,
  options: Pick<SchedulerOptions, 'once' | 'idlePollMs'>,
  held?: (any: boolean) => void,
): Promise<number | 'finished'> {
  let wakeInMs = Number.POSITIVE_INFINITY;
  const next = await frontier.nextReadyAt();
  held?.(next !== undefined);
  if (next === undefined) {
    if (options.once) {
      const stats = await frontier.stats();
      if (stats.pending === 0 && stats.leased === 0) {
        events.emit('idle', {});
        return 'finished';
      }
    }
    events.emit('idle', {});
  } else {
    wakeInMs = Math.max(0, next - clock.now());
  }
  if (options.idlePollMs > 0) wakeInMs = Math.min(wakeInMs, options.idlePollMs);
  return wakeInMs;
}
