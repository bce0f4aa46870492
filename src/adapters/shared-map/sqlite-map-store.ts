import type Database from 'better-sqlite3';
import type { MapChange, MapChanges, MapSnapshot, SharedMapStore } from '../../ports/shared-map.js';
import { openSqliteFile } from '../sqlite-file.js';

/** Named maps in a SQLite file beside a SQLite frontier: one table keyed by (map, id). */
export class SqliteMapStore implements SharedMapStore {
  readonly shared = false;
  #db: Database.Database | undefined;
  #put: Database.Statement<[string, string, string]> | undefined;
  #del: Database.Statement<[string, string]> | undefined;
  #all: Database.Statement<[string], { id: string; json: string }> | undefined;

  /** `table`: a fixed identifier of the caller's, never user input. */
  readonly #path: string;
  readonly #table: string;

  constructor(path: string, table: string) {
    this.#path = path;
    this.#table = table;
  }

  async open(): Promise<void> {
    if (this.#db) return;
    const db = openSqliteFile(this.#path);
    const t = this.#table;
    db.exec(`CREATE TABLE IF NOT EXISTS ${t} (
      job TEXT NOT NULL, id TEXT NOT NULL, json TEXT NOT NULL, PRIMARY KEY (job, id)) WITHOUT ROWID`);
    this.#put = db.prepare(
      `INSERT INTO ${t} (job, id, json) VALUES (?, ?, ?) ON CONFLICT (job, id) DO UPDATE SET json = excluded.json`,
    );
    this.#del = db.prepare(`DELETE FROM ${t} WHERE job = ? AND id = ?`);
    this.#all = db.prepare(`SELECT id, json FROM ${t} WHERE job = ?`);
    this.#db = db;
  }

  async load(map: string): Promise<MapSnapshot> {
    return { entries: this.#all?.all(map) ?? [], version: 0 };
  }

  async write(map: string, changes: readonly MapChange[]): Promise<void> {
    const db = this.#db;
    if (!db) return;
    db.transaction(() => {
      for (const c of changes) {
        if (c.json === undefined) this.#del?.run(map, c.id);
        else this.#put?.run(map, c.id, c.json);
      }
    })();
  }

  async changesSince(_map: string, version: number): Promise<MapChanges> {
    return { changes: [], reset: false, version };
  }

  async close(): Promise<void> {
    this.#db?.close();
    this.#db = undefined;
  }
}
