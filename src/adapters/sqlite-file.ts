import Database from 'better-sqlite3';

/** A SQLite file beside the frontier, opened as its own (frontier/sqlite/sqlite-schema.ts configure). */
export function openSqliteFile(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}
