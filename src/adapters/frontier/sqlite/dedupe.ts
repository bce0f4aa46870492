/**
 * The SQLite frontier's dedupe: which URLs each job has seen, in two tables (a two-level
 * log-structured merge; layout and figures in sqlite-schema.ts). New slots go to the small
 * table dedupe_new, whose pages stay in the cache and are few, so a commit writes few of
 * them; rows move to the big table dedupe later, many at once in key order, so each big-table
 * page a move dirties takes several rows instead of one. A slot is taken when either table
 * holds it, and never both: a slot is only claimed after both were looked at.
 *
 * Every function runs inside the caller's write transaction; nothing is cached across
 * transactions, since another instance (a CLI on the daemon's file) may write in between.
 */
import type Database from 'better-sqlite3';
import { CrawldError } from '../../../core/errors.js';
import { nextSlot } from './sqlite-schema.js';

/**
 * 53-bit hash of a URL for the dedupe tables: two 32-bit multiplicative hashes (FNV-1a and
 * a murmur-style multiplier), 32 + 21 bits, so it stays an exact JS number. Persisted in
 * every row (as the first slot a URL probes): changing it requires a schema migration.
 */
export function urlHash(url: string): number {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < url.length; i++) {
    const c = url.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/** The task in a dedupe slot. */
export interface KeyRow {
  id: number;
  url: string;
  state: 'ready' | 'delayed' | 'leased' | 'done' | 'dead';
  priority: number;
}

/** A slot to take for a new task: its URL's hash and the id the task row will have. */
export interface Claim {
  job: number;
  slot: number;
  id: number;
}

interface Key {
  job: number;
  hash: number;
}

/** Below every key (jobs and slots are >= 0): where the merge cursor starts and wraps to. */
const START: Key = { job: -1, hash: -1 };

// The merge: move the rows after the cursor, in key order, up to and including `end`. OR
// IGNORE for the reason given at claim; a slot already in dedupe (which the claims rule out)
// would show as fewer rows inserted than deleted, and fails the transaction (see merge).
const MOVE = 'INSERT OR IGNORE INTO dedupe (job, url_hash, id) SELECT job, url_hash, id FROM dedupe_new';
const AFTER = 'WHERE (job, url_hash) > (@job, @hash)';
const UP_TO = 'AND (job, url_hash) <= (@endJob, @endHash)';

function prepare(db: Database.Database) {
  const claim = new Map<number, Database.Statement<unknown[], number>>();
  /** One integer in meta, read and written by statements prepared once. */
  const meta = (key: string) => {
    const get = db.prepare<[], number>(`SELECT value FROM meta WHERE key = '${key}'`).pluck();
    const set = db.prepare<[number]>(`UPDATE meta SET value = ? WHERE key = '${key}'`);
    return { get: () => get.get()!, set: (value: number) => set.run(value) };
  };
  return {
    /**
     * `rows` claims in one statement; returns the id of each claim that got its slot. A slot
     * taken in either table is skipped: dedupe is read (a read dirties no page), dedupe_new
     * is written. VALUES rows are inserted in order, so of two claims on one slot the first
     * wins. OR IGNORE, not ON CONFLICT DO NOTHING: the same for the key, and it also turns
     * the NOT NULL checks (no value here is null) from abort into ignore, so that the
     * statement cannot fail halfway and SQLite keeps no statement journal for it (a copy of
     * each page before its first change: -20% of the insert time in the replica).
     */
    claim: (rows: number) => {
      let stmt = claim.get(rows);
      if (stmt === undefined) {
        const values = Array.from({ length: rows }, () => '(?, ?, ?)').join(', ');
        stmt = db
          .prepare<unknown[], number>(
            'INSERT OR IGNORE INTO dedupe_new (job, url_hash, id) SELECT v.column1, v.column2, v.column3 ' +
              `FROM (VALUES ${values}) v ` +
              'WHERE NOT EXISTS (SELECT 1 FROM dedupe d WHERE d.job = v.column1 AND d.url_hash = v.column2) ' +
              'RETURNING id',
          )
          .pluck();
        claim.set(rows, stmt);
      }
      return stmt;
    },
    add: db.prepare<[number, number, number]>('INSERT INTO dedupe_new (job, url_hash, id) VALUES (?, ?, ?)'),
    // The task in a slot, whichever table holds it (the small one is looked at first).
    find: db.prepare<{ job: number; slot: number }, KeyRow>(
      'SELECT id, url, state, priority FROM tasks WHERE id = coalesce(' +
        '(SELECT id FROM dedupe_new WHERE job = @job AND url_hash = @slot), ' +
        '(SELECT id FROM dedupe WHERE job = @job AND url_hash = @slot))',
    ),

    newRows: meta('dedupe_new'),
    cursorJob: meta('merge_job'),
    cursorHash: meta('merge_hash'),
    /** The key `skip` rows after the cursor: the end of a merge slice; none if the table ends first. */
    sliceEnd: db.prepare<Key & { skip: number }, Key>(
      `SELECT job, url_hash AS hash FROM dedupe_new ${AFTER} ORDER BY job, url_hash LIMIT 1 OFFSET @skip`,
    ),
    moveSlice: db.prepare<Key & { endJob: number; endHash: number }>(`${MOVE} ${AFTER} ${UP_TO}`),
    dropSlice: db.prepare<Key & { endJob: number; endHash: number }>(
      `DELETE FROM dedupe_new ${AFTER} ${UP_TO}`,
    ),
    moveTail: db.prepare<Key>(`${MOVE} ${AFTER}`),
    dropTail: db.prepare<Key>(`DELETE FROM dedupe_new ${AFTER}`),
  };
}

/**
 * Moves `n` rows from dedupe_new to dedupe: the next `n` in key order after the cursor,
 * wrapping at the end, and leaves the cursor after them. Returns the rows moved, fewer
 * than `n` only when dedupe_new is then empty.
 *
 * Why a moving slice and not the whole table once it reaches mergeRows: both write each
 * dedupe page once per mergeRows new rows (a slice of 1/k of dedupe_new's rows spans 1/k
 * of the key space, so 1/k of dedupe's pages), but the whole-table merge does it in one
 * transaction that blocks the event loop: 37-40 ms median, 53 ms at most at 1M URLs in
 * calls of 1000 (50-140 ms in a raw better-sqlite3 replica), growing with the table once it
 * outgrows the page cache. A slice is as large as the call that causes it: 2 ms median,
 * 6-11 ms at most, for the same total merge time and throughput. The cost is a cursor in
 * meta and at most two range moves per call.
 */
function merge(st: ReturnType<typeof prepare>, n: number): number {
  let at: Key = { job: st.cursorJob.get(), hash: st.cursorHash.get() };
  let moved = 0;
  // Two passes at most: the rows after the cursor, then from the start of the key space.
  for (let pass = 0; pass < 2 && moved < n; pass++) {
    const end = st.sliceEnd.get({ ...at, skip: n - moved - 1 });
    let inserted: number;
    let deleted: number;
    if (end === undefined) {
      inserted = st.moveTail.run(at).changes;
      deleted = st.dropTail.run(at).changes;
      at = START;
    } else {
      const range = { ...at, endJob: end.job, endHash: end.hash };
      inserted = st.moveSlice.run(range).changes;
      deleted = st.dropSlice.run(range).changes;
      at = end;
    }
    if (inserted !== deleted) throw new CrawldError('frontier dedupe: a slot is in both dedupe tables');
    moved += inserted;
  }
  st.cursorJob.set(at.job);
  st.cursorHash.set(at.hash);
  return moved;
}

/**
 * `mergeRows`: how many rows dedupe_new keeps; each call that takes it past that moves the
 * excess to dedupe (see settle).
 */
export function makeDedupe(db: Database.Database, mergeRows: number) {
  const st = prepare(db);

  return {
    /** The task of `url`, or the free slot where it goes: probes from its hash through both tables. */
    find(job: number, url: string): { row?: KeyRow; slot: number } {
      for (let slot = urlHash(url); ; slot = nextSlot(slot)) {
        const row = st.find.get({ job, slot });
        if (row === undefined || row.url === url) return { row, slot };
      }
    },

    /** Takes each claim's slot if free in both tables; returns the ids of the claims that got theirs. */
    claim(claims: readonly Claim[]): Set<number> {
      const args: number[] = [];
      for (const c of claims) args.push(c.job, c.slot, c.id);
      return new Set(st.claim(claims.length).all(args));
    },

    /** Takes a slot known to be free (from find). */
    add(job: number, slot: number, id: number): void {
      st.add.run(job, slot, id);
    },

    /**
     * Records `added` new rows in dedupe_new and moves what exceeds mergeRows to dedupe. The
     * row count lives in meta, read and written here inside the transaction, so that it is
     * never counted and stays right with several instances writing the file.
     */
    settle(added: number): void {
      if (added === 0) return;
      let rows = st.newRows.get() + added;
      if (rows > mergeRows) {
        const n = rows - mergeRows;
        const moved = merge(st, n);
        rows = moved < n ? 0 : rows - moved;
      }
      st.newRows.set(rows);
    },
  };
}

export type Dedupe = ReturnType<typeof makeDedupe>;
