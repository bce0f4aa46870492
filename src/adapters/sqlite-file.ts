import Database from 'better-sqlite3';

/**
 * A SQLite file beside the frontier (page state, sitemap state, cookie jars, render decisions),
 * opened as the frontier's own (adapters/frontier/sqlite/sqlite-schema.ts configure): WAL with
 * synchronous NORMAL, so a commit survives a crash or kill -9 and only a power loss may lose
 * the last transactions; a CLI holding the write lock briefly is waited for, not failed.
 */
export function openSqliteFile(path: string): Database.Database {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  return db;
}
