/** The SQLite frontier's enqueue: chunks claimed and inserted 50 rows a statement, or row by row
 *  when rows may drop (maxPending) or be forced. */
import { CrawldError } from '../../../core/errors.js';
import type { EnqueueResult } from '../../../ports/frontier.js';
import type { PreparedRequest } from '../frontier-common.js';
import { CountDeltas, stateAt } from './counts.js';
import { type Claim, type Dedupe, urlHash } from './dedupe.js';
import { FairTags } from './fair.js';
import type { Statements } from './statements.js';

/** Rows per INSERT statement of an enqueue (10 parameters each). */
const INSERT_ROWS = 50;

function taskRow(r: PreparedRequest, id: number, job: number, slot: number, state: string, tag: number) {
  return [
    id,
    job,
    r.url,
    slot,
    r.host,
    r.priority,
    r.depth,
    state,
    r.notBefore,
    tag,
    r.requestUrl ?? null,
  ] as const;
}

export function makeEnqueue(st: Statements, dedupe: Dedupe, maxPending: number) {
  return (batch: readonly PreparedRequest[], jobs: Map<string, number>, now: number): EnqueueResult =>
    new EnqueueCall(st, dedupe, maxPending, now).run(batch, jobs);
}

class EnqueueCall {
  readonly #deltas = new CountDeltas();
  readonly #tags: FairTags;
  #seq: number;
  #pending: number;
  #claimed = 0; // new rows in dedupe_new
  readonly #result = { added: 0, duplicates: 0, dropped: 0 };
  readonly #st: Statements;
  readonly #dedupe: Dedupe;
  readonly #maxPending: number;
  readonly #now: number;

  constructor(st: Statements, dedupe: Dedupe, maxPending: number, now: number) {
    this.#st = st;
    this.#dedupe = dedupe;
    this.#maxPending = maxPending;
    this.#now = now;
    this.#seq = st.seqGet.get()!;
    this.#pending = st.pendingTotal.get()!;
    this.#tags = new FairTags(st);
  }

  run(batch: readonly PreparedRequest[], jobs: Map<string, number>): EnqueueResult {
    for (let start = 0; start < batch.length; start += INSERT_ROWS) {
      const chunk = batch.slice(start, start + INSERT_ROWS);
      // Row by row when a row may be dropped (maxPending) or forced (may update a row).
      if (this.#pending + chunk.length > this.#maxPending || chunk.some((r) => r.force)) {
        for (const r of chunk) if (this.#one(r, jobs.get(r.jobId)!, this.#seq)) this.#seq++;
        continue;
      }
      this.#chunk(chunk, jobs);
    }
    this.#deltas.flush(this.#st);
    this.#tags.flush();
    this.#st.seqSet.run(this.#seq);
    this.#dedupe.settle(this.#claimed);
    return this.#result;
  }

  #added(r: PreparedRequest): void {
    this.#deltas.add('pending', r.priority, 1);
    this.#pending++;
    this.#result.added++;
  }

  /** Stores r with id `rowSeq` unless its URL is known; forced requests restart a finished task. */
  #one(r: PreparedRequest, job: number, rowSeq: number): boolean {
    const state = stateAt(r.notBefore, this.#now);
    const { row, slot } = this.#dedupe.find(job, r.url);
    if (row) {
      // Seen: a duplicate, unless forced and finished, which starts a new generation.
      if (!r.force || (row.state !== 'done' && row.state !== 'dead')) {
        this.#result.duplicates++;
        return false;
      }
      this.#st.requeue.run(r.priority, r.depth, state, r.notBefore, this.#tags.next(r.host), row.id);
      if (row.state === 'dead') this.#deltas.add('dead', row.priority, -1);
    } else if (!r.force && this.#pending >= this.#maxPending) {
      this.#result.dropped++; // nothing written, so the URL is not remembered as seen
      return false;
    } else {
      this.#dedupe.add(job, slot, rowSeq);
      this.#claimed++;
      this.#st.insert.run(...taskRow(r, rowSeq, job, slot, state, this.#tags.next(r.host)));
      this.#deltas.add('all', 0, 1);
    }
    this.#added(r);
    return true;
  }

  /** A chunk at once: a row whose slot is taken (duplicate or collision) is settled by #one(). */
  #chunk(chunk: readonly PreparedRequest[], jobs: Map<string, number>): void {
    const claims: Claim[] = chunk.map((r, i) => ({
      job: jobs.get(r.jobId)!,
      slot: urlHash(r.url),
      id: this.#seq + i,
    }));
    const stored = this.#dedupe.claim(claims);
    // The claimed rows go in first: #one() finds a duplicate of them through their task row.
    const args: unknown[] = [];
    chunk.forEach((r, i) => {
      const { job, slot, id } = claims[i]!;
      if (!stored.has(id)) return;
      // Tags only for rows stored: a duplicate link must not cost its host a turn.
      args.push(...taskRow(r, id, job, slot, stateAt(r.notBefore, this.#now), this.#tags.next(r.host)));
    });
    if (stored.size > 0 && this.#st.insertMany(stored.size).run(args).changes !== stored.size) {
      // seq behind the ids (the schema rules it out): fail the call whole.
      throw new CrawldError('frontier: a new task id is taken');
    }
    this.#claimed += stored.size;
    chunk.forEach((r, i) => {
      const { job, id } = claims[i]!;
      if (stored.has(id)) {
        this.#deltas.add('all', 0, 1);
        this.#added(r);
      } else {
        this.#one(r, job, id);
      }
    });
    // The ids of duplicates go unused: ids only have to grow.
    this.#seq += chunk.length;
  }
}
