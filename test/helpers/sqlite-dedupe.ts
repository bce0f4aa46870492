/**
 * Direct reads (and one forgery) of a SQLite frontier file's dedupe tables, for tests that
 * must see which table holds a URL's slot: through the frontier, both tables answer alike.
 */
import Database from 'better-sqlite3';
import { expect } from 'vitest';

/**
 * Two URLs with the same urlHash (a real 53-bit collision, found by Brent's cycle search on
 * x -> urlHash(`http://example.com/c${x}`)), so a test can make one probe past the other
 * without forging a slot.
 */
export const COLLIDING = [
  'http://example.com/c1102232280781002',
  'http://example.com/c819566188774393',
] as const;

export type DedupeTable = 'dedupe' | 'dedupe_new';

export interface SlotRow {
  table: DedupeTable;
  job: number;
  slot: number;
  id: number;
  url: string;
}

function withDb<T>(path: string, f: (db: Database.Database) => T): T {
  const db = new Database(path);
  try {
    return f(db);
  } finally {
    db.close();
  }
}

/** Every dedupe row of both tables with its task's URL, by table then key. */
export function dedupeRows(path: string): SlotRow[] {
  const select = (table: DedupeTable) =>
    `SELECT '${table}' AS "table", d.job, d.url_hash AS slot, d.id, t.url FROM ${table} d ` +
    'LEFT JOIN tasks t ON t.id = d.id';
  return withDb(path, (db) =>
    db.prepare<[], SlotRow>(`${select('dedupe')} UNION ALL ${select('dedupe_new')} ORDER BY 1, 2, 3`).all(),
  );
}

/** Where `url`'s slot is (job 1), if anywhere. */
export function slotOf(path: string, url: string): Pick<SlotRow, 'table' | 'slot'> | undefined {
  const row = dedupeRows(path).find((r) => r.url === url);
  return row && { table: row.table, slot: row.slot };
}

export function metaValue(path: string, key: string): number | undefined {
  return withDb(path, (db) =>
    db.prepare<[string], number>('SELECT value FROM meta WHERE key = ?').pluck().get(key),
  );
}

export function countRows(path: string, table: 'tasks' | DedupeTable): number {
  return withDb(path, (db) => db.prepare<[], number>(`SELECT count(*) FROM ${table}`).pluck().get()!);
}

/**
 * Moves `url`'s dedupe row, same slot, to `table` (a state the merge reaches when its cursor
 * stops there), keeping the row count in meta right.
 */
export function moveSlotTo(path: string, url: string, table: DedupeTable): void {
  withDb(path, (db) =>
    db.transaction(() => {
      const id = db.prepare<[string], number>('SELECT id FROM tasks WHERE url = ?').pluck().get(url)!;
      const from = table === 'dedupe' ? 'dedupe_new' : 'dedupe';
      db.prepare(`INSERT INTO ${table} SELECT * FROM ${from} WHERE id = ?`).run(id);
      db.prepare(`DELETE FROM ${from} WHERE id = ?`).run(id);
      db.prepare("UPDATE meta SET value = (SELECT count(*) FROM dedupe_new) WHERE key = 'dedupe_new'").run();
    })(),
  );
}

/**
 * Asserts the dedupe bookkeeping: dedupe_new's row count in meta is its real count, every
 * task has exactly one slot, in one table. Returns dedupe_new's row count.
 */
export function expectBookkeeping(path: string): number {
  return withDb(path, (db) => {
    const n = (sql: string) => db.prepare<[], number>(sql).pluck().get()!;
    const tasks = n('SELECT count(*) FROM tasks');
    const fresh = n('SELECT count(*) FROM dedupe_new');
    expect(n("SELECT value FROM meta WHERE key = 'dedupe_new'"), 'row count in meta').toBe(fresh);
    expect(n('SELECT count(*) FROM dedupe') + fresh, 'dedupe rows').toBe(tasks);
    expect(
      n('SELECT count(DISTINCT id) FROM (SELECT id FROM dedupe UNION ALL SELECT id FROM dedupe_new)'),
      'distinct ids',
    ).toBe(tasks);
    expect(
      n(
        'SELECT count(*) FROM (SELECT id FROM dedupe UNION ALL SELECT id FROM dedupe_new) JOIN tasks USING (id)',
      ),
      'rows naming a task',
    ).toBe(tasks);
    expect(n('SELECT count(*) FROM dedupe JOIN dedupe_new USING (job, url_hash)'), 'slots in both').toBe(0);
    return fresh;
  });
}
