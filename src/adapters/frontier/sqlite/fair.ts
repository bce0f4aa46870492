/**
 * Fair turns across hosts (start-time fair queuing): a host's next task's `seq` is max(V, its
 * last tag + 1), V (meta 'vtime') the largest tag leased. Each host stays FIFO, a backlog gets one
 * turn per round, a new host joins the current round instead of waiting behind every older task.
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
