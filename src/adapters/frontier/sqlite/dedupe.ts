/**
 * The SQLite frontier's dedupe in two tables (a two-level LSM; sqlite-schema.ts): new slots go
 * to the small dedupe_new, whose few pages stay cached; rows move to dedupe in key order, so a
 * page a move dirties takes several rows. A slot is in one table, never both.
 * Runs inside the caller's transaction; nothing cached across them (a CLI may write in between).
 */
import type Database from 'better-sqlite3';
import { CrawldError } from '../../../core/errors.js';
import { nextSlot } from './sqlite-schema.js';

/** 53-bit URL hash (FNV-1a 32 bits + murmur-style 21 bits: an exact JS number). Persisted:
 *  changing it requires a schema migration. */
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

export interface KeyRow {
  id: number;
  url: string;
  state: 'ready' | 'delayed' | 'leased' | 'done' | 'dead';
  priority: number;
}

/** A slot to take for a new task, and the id its row will have. */
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

// OR IGNORE as in claim; a slot already in dedupe shows as fewer inserted than deleted (merge throws).
const MOVE = 'INSERT OR IGNORE INTO dedupe (job, url_hash, id) SELECT job, url_hash, id FROM dedupe_new';
const AFTER = 'WHERE (job, url_hash) > (@job, @hash)';
const UP_TO = 'AND (job, url_hash) <= (@endJob, @endHash)';

function prepare(db: Database.Database) {
  const claim = new Map<number, Database.Statement<unknown[], number>>();
  const meta = (key: string) => {
    const get = db.prepare<[], number>(`SELECT value FROM meta WHERE key = '${key}'`).pluck();
    const set = db.prepare<[number]>(`UPDATE meta SET value = ? WHERE key = '${key}'`);
    return { get: () => get.get()!, set: (value: number) => set.run(value) };
  };
  return {
    /** `rows` claims in one statement. OR IGNORE: it cannot fail halfway, so no statement journal. */
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
    find: db.prepare<{ job: number; slot: number }, KeyRow>(
      'SELECT id, url, state, priority FROM tasks WHERE id = coalesce(' +
        '(SELECT id FROM dedupe_new WHERE job = @job AND url_hash = @slot), ' +
        '(SELECT id FROM dedupe WHERE job = @job AND url_hash = @slot))',
    ),

    newRows: meta('dedupe_new'),
    cursorJob: meta('merge_job'),
    cursorHash: meta('merge_hash'),
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
 * Moves the next `n` rows after the cursor (wrapping) from dedupe_new to dedupe; fewer only
 * when dedupe_new is then empty. A moving slice, not the whole table at once: the same pages
 * written in total, but no long transaction blocking the event loop (docs/performance.md).
 */
function merge(st: ReturnType<typeof prepare>, n: number): number {
  let at: Key = { job: st.cursorJob.get(), hash: st.cursorHash.get() };
  let moved = 0;
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

/** `mergeRows`: the rows dedupe_new keeps; settle() moves the excess to dedupe. */
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

    /** Records `added` rows in dedupe_new, moving what exceeds mergeRows (the count lives in meta). */
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
