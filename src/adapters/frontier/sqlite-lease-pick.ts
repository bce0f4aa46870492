/**
 * Which ready tasks a lease takes when the caller excludes hosts or caps them (maxPerHost):
 * the first ones in lease order (priority, then FIFO) whose host is neither excluded nor at
 * its cap, looking at no more than `scan` ready tasks.
 *
 * The walk is over the covering index (priority, seq, host) in JS, stopping at `max` picks.
 * It replaced a statement that was given the exclusions as a JSON array: in a crawl over
 * thousands of hosts every lease serialised, parsed and indexed ~650 host names (the hosts
 * whose buffers are full) to take ~40 tasks (bench/breadth.mjs); and that statement could
 * not cap a host, so one lease took several tasks of one host, which then filled the
 * scheduler's buffer while other hosts had nothing buffered.
 */
import type Database from 'better-sqlite3';

export interface LeasePick {
  readonly max: number;
  readonly scan: number;
  readonly exclude: ReadonlySet<string> | undefined;
  readonly maxPerHost: ((host: string) => number) | undefined;
}

/** Ids of the ready tasks to lease, in lease order. */
export function pickReady(ready: Database.Statement<[number], [number, string]>, p: LeasePick): number[] {
  const ids: number[] = [];
  if (p.max <= 0) return ids;
  /** Room left per host seen in this walk (maxPerHost asked once per host). */
  const room = new Map<string, number>();
  for (const [id, host] of ready.iterate(p.scan)) {
    if (p.exclude?.has(host)) continue;
    if (p.maxPerHost) {
      let left = room.get(host);
      if (left === undefined) left = Math.floor(p.maxPerHost(host));
      if (!(left > 0)) {
        room.set(host, 0);
        continue;
      }
      room.set(host, left - 1);
    }
    ids.push(id);
    // Leaving the loop early ends the statement (better-sqlite3 resets the iterator).
    if (ids.length >= p.max) break;
  }
  return ids;
}
