import type { Frontier } from '../ports/frontier.js';
import { recordKey, type Sink } from '../ports/sink.js';

/**
 * After a crash, tasks the dead process had leased are still leased. For a frontier this
 * daemon owns alone (SQLite, memory) they are reclaimed at once instead of waiting for the
 * visibility timeout: those whose record every sink already holds are acked (the crash hit
 * between write and ack), the rest go back to pending without charging an attempt.
 */
export async function recoverLeases(
  frontier: Frontier,
  sinks: readonly Sink[],
  now: number,
  recrawlAtFor: (jobId: string) => number | undefined,
): Promise<{ acked: number; returned: number }> {
  const leased = await frontier.listLeased();
  if (leased.length === 0) return { acked: 0, returned: 0 };
  const keys = new Set(leased.map((t) => recordKey({ taskId: t.id, generation: t.generation })));
  let present: Set<string> | undefined;
  for (const sink of sinks) {
    const found = await sink.recover(keys);
    present = present ? new Set([...present].filter((k) => found.has(k))) : found;
  }
  let acked = 0;
  let returned = 0;
  for (const t of leased) {
    if (present?.has(recordKey({ taskId: t.id, generation: t.generation }))) {
      const recrawlAt = recrawlAtFor(t.jobId);
      await frontier.ack(t, recrawlAt !== undefined ? { recrawlAt } : undefined);
      acked++;
    } else {
      await frontier.retry(t, { at: now, reason: 'recovered', chargeAttempt: false });
      returned++;
    }
  }
  return { acked, returned };
}
