import type { Frontier, Task } from '../ports/frontier.js';
import { recordKey, type Sink } from '../ports/sink.js';
import type { PartialRecords } from './partial-records.js';

/**
 * After a crash, tasks the dead process had leased are still leased. They are reclaimed at
 * once instead of waiting for the visibility timeout (on a shared frontier, those of this
 * daemon's lease owner only): those whose record every sink already holds are acked (the crash hit
 * between write and ack), the rest go back to pending without charging an attempt.
 */
export async function recoverLeases(
  frontier: Frontier,
  sinks: readonly Sink[],
  now: number,
  recrawlAtFor: (jobId: string) => number | undefined,
  /** The sinks a job's records go to (sinks with a `jobs` filter); default all of them. */
  sinksFor: (jobId: string) => readonly Sink[] = () => sinks,
  /** Filled with the records some but not all of their sinks hold (see PartialRecords). */
  partial?: PartialRecords,
  /** On a shared frontier: only the leases this daemon's dead run took. */
  owner?: string,
): Promise<{ acked: number; returned: number }> {
  const leased = await frontier.listLeased(owner === undefined ? undefined : { owner });
  if (leased.length === 0) return { acked: 0, returned: 0 };
  const keyOf = (t: { id: string; generation: number }) =>
    recordKey({ taskId: t.id, generation: t.generation });
  // Each sink is asked only about the tasks of the jobs it serves.
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
