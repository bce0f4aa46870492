import Database from 'better-sqlite3';
import type { PageState, PageStateStore } from '../../ports/page-state.js';

/** Last extracted fields per page, in its own SQLite file beside the frontier. */
export class SqlitePageStateStore implements PageStateStore {
  #db: Database.Database | undefined;
  #get:
    | Database.Statement<[string, string], { hash: string; fields: string; fetched_at: number }>
    | undefined;
  #put: Database.Statement<[string, string, string, string, number]> | undefined;

  constructor(private readonly path: string) {}

  async open(): Promise<void> {
    if (this.#db) return;
    const db = new Database(this.path);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('busy_timeout = 5000');
    db.exec(`CREATE TABLE IF NOT EXISTS page_state (
      job TEXT NOT NULL, url TEXT NOT NULL, hash TEXT NOT NULL, fields TEXT NOT NULL, fetched_at INTEGER NOT NULL,
      PRIMARY KEY (job, url)) WITHOUT ROWID`);
    this.#get = db.prepare('SELECT hash, fields, fetched_at FROM page_state WHERE job = ? AND url = ?');
    this.#put = db.prepare(
      `INSERT INTO page_state (job, url, hash, fields, fetched_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (job, url) DO UPDATE SET hash = excluded.hash, fields = excluded.fields, fetched_at = excluded.fetched_at`,
    );
    this.#db = db;
  }

  async get(jobId: string, url: string): Promise<PageState | undefined> {
    const row = this.#get?.get(jobId, url);
    if (!row) return undefined;
    return {
      fieldsHash: row.hash,
      fields: JSON.parse(row.fields) as Record<string, unknown>,
      fetchedAt: row.fetched_at,
    };
  }

  async put(jobId: string, url: string, state: PageState): Promise<void> {
    this.#put?.run(jobId, url, state.fieldsHash, JSON.stringify(state.fields), state.fetchedAt);
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
  }
}

/** In-memory page state, for the memory frontier and tests. */
export class MemoryPageStateStore implements PageStateStore {
  readonly #map = new Map<string, PageState>();
  async open(): Promise<void> {}
  async get(jobId: string, url: string): Promise<PageState | undefined> {
    return this.#map.get(`${jobId}\n${url}`);
  }
  async put(jobId: string, url: string, state: PageState): Promise<void> {
    this.#map.set(`${jobId}\n${url}`, state);
  }
  async close(): Promise<void> {}
}
