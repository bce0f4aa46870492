import type Database from 'better-sqlite3';
import type { PageState, PageStateStore } from '../../ports/page-state.js';
import { openSqliteFile } from '../sqlite-file.js';

interface Row {
  hash: string;
  fields: string;
  fetched_at: number;
  etag: string | null;
  last_modified: string | null;
  body_bytes: number | null;
  content_hash: string | null;
  interval_ms: number | null;
}

/** Columns added after the first release: added in place to an older pages.db (all nullable). */
const ADDED_COLUMNS = [
  ['etag', 'TEXT'],
  ['last_modified', 'TEXT'],
  ['body_bytes', 'INTEGER'],
  ['content_hash', 'TEXT'],
  ['interval_ms', 'INTEGER'],
] as const;

/** Last extracted fields per page, in its own SQLite file beside the frontier. */
export class SqlitePageStateStore implements PageStateStore {
  #db: Database.Database | undefined;
  #get: Database.Statement<[string, string], Row> | undefined;
  #put:
    | Database.Statement<
        [
          string,
          string,
          string,
          string,
          number,
          string | null,
          string | null,
          number | null,
          string | null,
          number | null,
        ]
      >
    | undefined;

  readonly #path: string;

  constructor(path: string) {
    this.#path = path;
  }

  async open(): Promise<void> {
    if (this.#db) return;
    const db = openSqliteFile(this.#path);
    db.exec(`CREATE TABLE IF NOT EXISTS page_state (
      job TEXT NOT NULL, url TEXT NOT NULL, hash TEXT NOT NULL, fields TEXT NOT NULL, fetched_at INTEGER NOT NULL,
      PRIMARY KEY (job, url)) WITHOUT ROWID`);
    const have = new Set((db.pragma('table_info(page_state)') as { name: string }[]).map((c) => c.name));
    for (const [name, type] of ADDED_COLUMNS)
      if (!have.has(name)) db.exec(`ALTER TABLE page_state ADD COLUMN ${name} ${type}`);
    this.#get = db.prepare(
      'SELECT hash, fields, fetched_at, etag, last_modified, body_bytes, content_hash, interval_ms FROM page_state WHERE job = ? AND url = ?',
    );
    this.#put = db.prepare(
      `INSERT INTO page_state (job, url, hash, fields, fetched_at, etag, last_modified, body_bytes, content_hash, interval_ms)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (job, url) DO UPDATE SET hash = excluded.hash, fields = excluded.fields,
         fetched_at = excluded.fetched_at, etag = excluded.etag, last_modified = excluded.last_modified,
         body_bytes = excluded.body_bytes, content_hash = excluded.content_hash, interval_ms = excluded.interval_ms`,
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
      ...(row.etag !== null ? { etag: row.etag } : {}),
      ...(row.last_modified !== null ? { lastModified: row.last_modified } : {}),
      ...(row.body_bytes !== null ? { bodyBytes: row.body_bytes } : {}),
      ...(row.content_hash !== null ? { contentHash: row.content_hash } : {}),
      ...(row.interval_ms !== null ? { intervalMs: row.interval_ms } : {}),
    };
  }

  async put(jobId: string, url: string, state: PageState): Promise<void> {
    this.#put?.run(
      jobId,
      url,
      state.fieldsHash,
      JSON.stringify(state.fields),
      state.fetchedAt,
      state.etag ?? null,
      state.lastModified ?? null,
      state.bodyBytes ?? null,
      state.contentHash ?? null,
      state.intervalMs ?? null,
    );
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
