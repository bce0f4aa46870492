import Database from 'better-sqlite3';
import type { CookieChange, CookieChanges, CookieSnapshot, CookieStore } from '../../ports/cookie-store.js';

/** The jars of a SQLite frontier's crawl, in their own SQLite file beside it (one daemon writes it). */
export class SqliteCookieStore implements CookieStore {
  readonly shared = false;
  #db: Database.Database | undefined;
  #put: Database.Statement<[string, string, string]> | undefined;
  #del: Database.Statement<[string, string]> | undefined;
  #all: Database.Statement<[string], { id: string; json: string }> | undefined;

  constructor(private readonly path: string) {}

  async open(): Promise<void> {
    if (this.#db) return;
    const db = new Database(this.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`CREATE TABLE IF NOT EXISTS cookies (
      job TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (job, id)) WITHOUT ROWID`);
    this.#put = db.prepare(
      'INSERT INTO cookies (job, id, json) VALUES (?, ?, ?) ON CONFLICT (job, id) DO UPDATE SET json = excluded.json',
    );
    this.#del = db.prepare('DELETE FROM cookies WHERE job = ? AND id = ?');
    this.#all = db.prepare('SELECT id, json FROM cookies WHERE job = ?');
    this.#db = db;
  }

  async load(jobId: string): Promise<CookieSnapshot> {
    return { cookies: this.#all?.all(jobId) ?? [], version: 0 };
  }

  async write(jobId: string, changes: readonly CookieChange[]): Promise<void> {
    const db = this.#db;
    if (!db) return;
    db.transaction(() => {
      for (const c of changes) {
        if (c.json === undefined) this.#del?.run(jobId, c.id);
        else this.#put?.run(jobId, c.id, c.json);
      }
    })();
  }

  async changesSince(_jobId: string, version: number): Promise<CookieChanges> {
    return { changes: [], reset: false, version };
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
  }
}
