import type { Frontier, Task } from '../../ports/frontier.js';
import { recordKey, type Sink } from '../../ports/sink.js';
import type { PartialRecords } from './partial-records.js';

/**
 * A crashed run's leases, reclaimed at once (on a shared frontier, only this daemon's owner's): a
 * task whose record every sink holds is acked (the crash hit between write and ack), the rest go back uncharged.
 */
export async function recoverLeases(
  frontier: Frontier,
  sinks: readonly Sink[],
  now: number,
  recrawlAtFor: (jobId: string) => number | undefined,
  /** @default all of `sinks` */
  sinksFor: (jobId: string) => readonly Sink[] = () => sinks,
  /** Filled with the records only some sinks hold. */
  partial?: PartialRecords,
  /** On a shared frontier: only the leases this daemon's dead run took. */
  owner?: string,
): Promise<{ acked: number; returned: number }> {
  const leased = await frontier.listLeased(owner === undefined ? undefined : { owner });
  if (leased.length === 0) return { acked: 0, returned: 0 };
  const keyOf = (t: { id: string; generation: number }) =>
    recordKey({ taskId: t.id, generation: t.generation });
  const found = new Map<Sink, Set<string>>();
  for (const sink of sinks) {
    const keys = new Set(leased.filter((t) => sinksFor(t.jobId).includes(sink)).map(keyOf));
    found.set(sink, keys.size > 0 ? await sink.recover(keys) : new Set());
  }
  const isStored = (t: Task) => {
    const serving = sinksFor(t.jobId);
    return serving.length > 0 && serving.every((s) => found.get(s)?.has(keyOf(t)));
  };
  let acked = 0;
  let returned = 0;
  for (const t of leased) {
    if (isStored(t)) {
      const recrawlAt = recrawlAtFor(t.jobId);
      await frontier.ack(t, recrawlAt !== undefined ? { recrawlAt } : undefined);
      acked++;
    } else {
      for (const s of sinksFor(t.jobId)) if (found.get(s)?.has(keyOf(t))) partial?.add(keyOf(t), s);
      await frontier.retry(t, { at: now, reason: 'recovered', chargeAttempt: false });
      returned++;
    }
  }
  return { acked, returned };
}
