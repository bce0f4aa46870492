/**
 * Fair turns across hosts in the SQLite frontier's lease order (start-time fair queuing).
 *
 * A task's `seq` column is its start tag: lease() takes ready tasks by (priority, seq). A
 * host's next task gets max(V, the host's last tag + 1), where V (meta 'vtime') is the
 * largest tag leased so far. So each host's tasks stay FIFO, a host with a long backlog gets
 * one turn per round like every other host instead of holding the front of the queue, and a
 * host that had nothing queued joins at the current round, not behind every older task.
 *
 * Why: with one FIFO across hosts, a host's next page waited behind everything enqueued
 * before it (2-3 s in bench/breadth.mjs), at every depth of its site, so the hosts found last
 * finished seconds after the rest while the crawler idled (commit a3713b0).
 *
 * Per-host last tags live in host_tags. A row whose tag is below V says nothing a missing row
 * would not (both give V), so SqliteFrontier.open() deletes those (hostTagsPrune).
 */
import type { Statements } from './statements.js';

type TagStatements = Pick<Statements, 'vtimeGet' | 'hostTagGet' | 'hostTagSet'>;

/** The tags one transaction hands out; flush() stores each host's last one. */
export class FairTags {
  readonly #last = new Map<string, number>();
  readonly #v: number;
  readonly #st: TagStatements;

  constructor(st: TagStatements) {
    this.#st = st;
    this.#v = st.vtimeGet.get()!;
  }

  /** The start tag of the host's next task. */
  next(host: string): number {
    const last = this.#last.get(host) ?? this.#st.hostTagGet.get(host) ?? Number.NEGATIVE_INFINITY;
    const tag = Math.max(this.#v, last + 1);
    this.#last.set(host, tag);
    return tag;
  }

  /** Stores each host's last tag; once, at the end of the transaction. */
  flush(): void {
    for (const [host, tag] of this.#last) this.#st.hostTagSet.run(host, tag);
    this.#last.clear();
  }
}
