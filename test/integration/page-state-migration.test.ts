/**
 * A pages.db written before validators and intervals were stored opens with the current build:
 * its rows read back unchanged (no validators, so the first recrawl is unconditional) and take
 * the new columns on the next write.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqlitePageStateStore } from '../../src/adapters/page-state/sqlite-page-state.js';
import { tempDir } from '../helpers/cli.js';

describe('page state store migration', () => {
  it('adds the validator columns to an old pages.db in place', async () => {
    const path = join(tempDir(), 'pages.db');
    const old = new Database(path);
    old.exec(`CREATE TABLE page_state (
      job TEXT NOT NULL, url TEXT NOT NULL, hash TEXT NOT NULL, fields TEXT NOT NULL, fetched_at INTEGER NOT NULL,
      PRIMARY KEY (job, url)) WITHOUT ROWID`);
    old
      .prepare('INSERT INTO page_state VALUES (?, ?, ?, ?, ?)')
      .run('j', 'http://a/', 'h1', '{"price":3}', 1000);
    old.close();

    const store = new SqlitePageStateStore(path);
    await store.open();
    expect(await store.get('j', 'http://a/')).toEqual({
      fieldsHash: 'h1',
      fields: { price: 3 },
      fetchedAt: 1000,
    });
    const next = {
      fieldsHash: 'h2',
      fields: { price: 4 },
      fetchedAt: 2000,
      etag: 'W/"x"',
      lastModified: 'Wed, 01 Jul 2026 10:00:00 GMT',
      bodyBytes: 15_000,
      contentHash: 'ab',
      intervalMs: 60_000,
    };
    await store.put('j', 'http://a/', next);
    await store.close();
    // Reopening (columns already there) keeps everything.
    const again = new SqlitePageStateStore(path);
    await again.open();
    expect(await again.get('j', 'http://a/')).toEqual(next);
    await again.close();
  });
});
