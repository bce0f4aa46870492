/** The SQLite frontier's transactions. BEGIN IMMEDIATE: two instances on one file queue on
 *  busy_timeout instead of failing with SQLITE_BUSY on lock upgrade. */
import type Database from 'better-sqlite3';
import { CountDeltas, stateAt } from './counts.js';
import type { Dedupe } from './dedupe.js';
import type { ExclusionChange } from './excluded.js';
import { FairTags } from './fair.js';
import { makeEnqueue } from './sqlite-enqueue.js';
import type { Statements, TaskRow } from './statements.js';

/** Per-call bounds on catch-up work (expired leases, due delayed tasks); the rest follows on later calls. */
const RECLAIM_BATCH = 10_000;
const PROMOTE_BATCH = 10_000;

export interface LeaseArgs {
  now: number;
  max: number;
  expiresAt: number;
  owner: string;
  token: string;
  /** Unset: no exclusions; else the writes that bring lease_exclude up to date (excluded.ts). */
  exclude: ExclusionChange | undefined;
  scan: number;
}

export interface RawStats {
  pending: Array<{ priority: number; n: number }>;
  all: number;
  dead: number;
  leased: number;
  delayed: number;
}

/** Promotes due and reclaims expired tasks, then takes up to `max` in lease order. */
function lease(st: Statements, a: LeaseArgs): TaskRow[] {
  const deltas = new CountDeltas();
  for (const priority of st.reclaim.all(a.now, RECLAIM_BATCH)) deltas.add('pending', priority, 1);
  st.promote.run(a.now, PROMOTE_BATCH);
  const take = { token: a.token, owner: a.owner, expiresAt: a.expiresAt, max: a.max };
  if (a.exclude) {
    for (const host of a.exclude.drop) st.excludeDrop.run(host);
    for (const host of a.exclude.add) st.excludeAdd.run(host);
  }
  const rows = a.exclude === undefined ? st.take.all(take) : st.takeExcluding.all({ ...take, scan: a.scan });
  let tag = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    deltas.add('pending', row.priority, -1);
    tag = Math.max(tag, row.seq);
  }
  deltas.flush(st);
  if (rows.length > 0) st.vtimeRaise.run(tag);
  // RETURNING order is unspecified: restore lease order.
  return rows.sort((x, y) => x.priority - y.priority || x.seq - y.seq);
}

export function makeTransactions(db: Database.Database, st: Statements, dedupe: Dedupe, maxPending: number) {
  /** A leased task of `host` back to pending, behind its host's turns; false when the lease is stale. */
  const requeueLeased = (host: string, write: (tag: number) => number | undefined): boolean => {
    const tags = new FairTags(st);
    const priority = write(tags.next(host));
    if (priority === undefined) return false;
    tags.flush();
    st.bump.run('pending', priority, 1);
    return true;
  };

  return {
    enqueue: makeEnqueue(st, dedupe, maxPending),

    lease: db.transaction((a: LeaseArgs) => lease(st, a)),

    recrawl: (id: number, host: string, token: string, at: number, now: number) =>
      requeueLeased(host, (tag) => st.recrawl.get(stateAt(at, now), at, tag, id, token)),

    retry: (
      id: number,
      host: string,
      token: string,
      at: number,
      now: number,
      charge: boolean,
      reason: string,
    ) =>
      requeueLeased(host, (tag) =>
        st.retry.get(stateAt(at, now), at, tag, charge ? 1 : 0, reason, id, token),
      ),

    bury: (id: number, token: string, reason: string, now: number): boolean => {
      const priority = st.bury.get(reason, now, reason, id, token);
      if (priority === undefined) return false;
      st.bump.run('dead', priority, 1);
      return true;
    },

    redrive: db.transaction((ids: readonly number[] | undefined, job: number | null, now: number): number => {
      const deltas = new CountDeltas();
      const tags = new FairTags(st);
      let moved = 0;
      for (const id of ids ?? st.deadIds.all({ job })) {
        const host = st.deadHost.get({ id, job });
        if (host === undefined) continue; // not dead (any more), or another job's
        const priority = st.revive.get({ now, seq: tags.next(host), id, job })!;
        deltas.add('dead', priority, -1);
        deltas.add('pending', priority, 1);
        moved++;
      }
      deltas.flush(st);
      tags.flush();
      return moved;
    }),

    /** One read transaction, so the derived numbers come from one snapshot. */
    stats: db.transaction((now: number): RawStats => {
      const raw: RawStats = { pending: [], all: 0, dead: 0, leased: st.leasedCount.get()!, delayed: 0 };
      for (const { bucket, priority, n } of st.counts.all()) {
        if (bucket === 'pending') raw.pending.push({ priority, n });
        else if (bucket === 'dead') raw.dead += n;
        else if (bucket === 'all') raw.all += n;
      }
      // Due-but-not-yet-promoted rows are ready, not delayed: count only the future range.
      raw.delayed = st.delayedCount.get(now)!;
      return raw;
    }),

    nextReadyAt: db.transaction((): number | undefined => {
      const times = [st.readyHeadTime.get(), st.delayedMin.get(), st.leaseMin.get()];
      const known = times.filter((t): t is number => typeof t === 'number');
      return known.length ? Math.min(...known) : undefined;
    }),
  };
}

export type Transactions = ReturnType<typeof makeTransactions>;
