import type Database from 'better-sqlite3';
import type { SitemapStateStore } from '../../ports/sitemap-state.js';
import { openSqliteFile } from '../sqlite-file.js';

/** In-process store for the memory frontier and tests. */
export class MemorySitemapStateStore implements SitemapStateStore {
  readonly #byJob = new Map<string, Map<string, number>>();

  async open(): Promise<void> {}
  async close(): Promise<void> {}

  async lastmods(jobId: string, urls: readonly string[]): Promise<Map<string, number>> {
    const known = this.#byJob.get(jobId);
    const out = new Map<string, number>();
    if (!known) return out;
    for (const u of urls) {
      const m = known.get(u);
      if (m !== undefined) out.set(u, m);
    }
    return out;
  }

  async setLastmods(jobId: string, entries: readonly { url: string; lastmod: number }[]): Promise<void> {
    let known = this.#byJob.get(jobId);
    if (!known) {
      known = new Map();
      this.#byJob.set(jobId, known);
    }
    for (const e of entries) known.set(e.url, e.lastmod);
  }
}

/** Durable store in its own SQLite file of the data dir. */
export class SqliteSitemapStateStore implements SitemapStateStore {
  readonly #path: string;
  #db: Database.Database | undefined;

  constructor(path: string) {
    this.#path = path;
  }

  async open(): Promise<void> {
    const db = openSqliteFile(this.#path);
    db.exec(`CREATE TABLE IF NOT EXISTS sitemap_lastmod (
      job_id TEXT NOT NULL, url TEXT NOT NULL, lastmod INTEGER NOT NULL,
      PRIMARY KEY (job_id, url)) WITHOUT ROWID`);
    this.#db = db;
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
  }

  async lastmods(jobId: string, urls: readonly string[]): Promise<Map<string, number>> {
    const db = this.#open();
    const get = db.prepare<[string, string], { lastmod: number }>(
      'SELECT lastmod FROM sitemap_lastmod WHERE job_id = ? AND url = ?',
    );
    const out = new Map<string, number>();
    for (const u of urls) {
      const row = get.get(jobId, u);
      if (row) out.set(u, row.lastmod);
    }
    return out;
  }

  async setLastmods(jobId: string, entries: readonly { url: string; lastmod: number }[]): Promise<void> {
    const db = this.#open();
    const put = db.prepare(
      'INSERT INTO sitemap_lastmod (job_id, url, lastmod) VALUES (?, ?, ?) ' +
        'ON CONFLICT (job_id, url) DO UPDATE SET lastmod = excluded.lastmod',
    );
    db.transaction(() => {
      for (const e of entries) put.run(jobId, e.url, e.lastmod);
    })();
  }

  #open(): Database.Database {
    if (!this.#db) throw new Error('sitemap state store is not open');
    return this.#db;
  }
}
