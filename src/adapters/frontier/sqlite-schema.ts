/**
 * Schema and connection settings of the SQLite frontier.
 *
 * Sizing target: 1,000,000 queued URLs in well under 250 MB of process RSS, so nothing
 * scales with the queue in memory: the queue lives in indexes, and the counters the hot
 * paths need (pending total for maxPending, per-priority stats) live in a small table.
 *
 * States: pending is split into 'ready' and 'delayed' so that the lease index holds only
 * leasable rows. With one 'pending' state, a large block of future tasks (retries,
 * recrawls scheduled a day ahead) sorting ahead of the ready ones in (priority, seq)
 * order would be walked on every lease. A delayed row is promoted to 'ready' by lease()
 * once its notBefore has passed.
 */
import type Database from 'better-sqlite3';
import { CrawldError } from '../../core/errors.js';

/** 2: the dedupe index is UNIQUE, hash collisions are resolved by probing (see tasks_url). */
export const SCHEMA_VERSION = 2;

/** Fixed page-cache size; the database file itself may be far larger. */
const CACHE_KIB = 32 * 1024;

export const DDL = `
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

-- job is an integer key into jobs: job ids are repeated on every row and in the dedupe
-- index, and an integer costs 1-2 bytes where a UUID costs 36.
CREATE TABLE IF NOT EXISTS tasks (
  id INTEGER PRIMARY KEY,
  job INTEGER NOT NULL,
  url TEXT NOT NULL,
  url_hash INTEGER NOT NULL,
  host TEXT NOT NULL,
  priority INTEGER NOT NULL,
  depth INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('ready', 'delayed', 'leased', 'done', 'dead')),
  not_before INTEGER NOT NULL,
  seq INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  generation INTEGER NOT NULL DEFAULT 0,
  lease_token TEXT,
  lease_owner TEXT,
  lease_expires_at INTEGER,
  last_error TEXT,
  dead_at INTEGER,
  dead_reason TEXT
);

-- Dedupe for the life of the frontier (rows are never deleted). Keyed by a 53-bit hash of
-- the URL, not the URL: new URLs land at random places in this index, so each one dirties
-- a page, and an index of short keys has 4x fewer pages to dirty, cache and checkpoint.
-- That doubled enqueue throughput at 1M rows. UNIQUE, so that an enqueue inserts many rows
-- per statement (ON CONFLICT DO NOTHING) instead of looking each URL up first. url_hash is
-- a slot, not always the URL's hash: a URL whose slot holds another URL (a collision) takes
-- the next free slot (hash + 1, + 2, ...; open addressing, linear probing), so a lookup
-- walks from the URL's hash until it finds the URL or a free slot. Rows are never deleted
-- and keep their slot, so such a run of taken slots never breaks: a collision never hides
-- a URL.
CREATE UNIQUE INDEX IF NOT EXISTS tasks_url ON tasks (job, url_hash);
-- The lease order. host is included so that skipping excluded hosts reads only the index.
CREATE INDEX IF NOT EXISTS tasks_ready ON tasks (priority, seq, host) WHERE state = 'ready';
CREATE INDEX IF NOT EXISTS tasks_delayed ON tasks (not_before) WHERE state = 'delayed';
CREATE INDEX IF NOT EXISTS tasks_leased ON tasks (lease_expires_at) WHERE state = 'leased';
CREATE INDEX IF NOT EXISTS tasks_dead ON tasks (dead_at) WHERE state = 'dead';

-- Row counts per bucket and priority, kept in step by the writes that change them, so that
-- maxPending checks and stats() never count the big table. Buckets: 'pending' and 'dead'
-- by priority, 'all' (priority 0) for every row. Leased is counted through its small
-- index and done is derived (all - pending - leased - dead), so the hottest write, a plain
-- ack, touches no counter.
CREATE TABLE IF NOT EXISTS counts (
  bucket TEXT NOT NULL,
  priority INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (bucket, priority)
) WITHOUT ROWID;

-- 'seq' is the FIFO counter. It is read and written inside each write transaction rather
-- than cached, so two instances on one file (daemon + CLI) never hand out the same seq.
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (key, value) VALUES ('seq', 1);
`;

export function configure(db: Database.Database): void {
  // WAL + synchronous=NORMAL: a commit is in the WAL file (the OS page cache) before the
  // call returns, so a process crash or kill -9 loses nothing, which is what we promise.
  // Only the WAL fsync is deferred to checkpoints, so a power loss or kernel panic may lose
  // the last transactions (never corrupt the file). FULL would fsync every ack and cap
  // throughput at the disk's fsync rate.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Another instance (a CLI against the daemon's data dir) may hold the write lock briefly.
  db.pragma('busy_timeout = 5000');
  // Checkpoints are where NORMAL fsyncs; the default (every 1000 pages) fsyncs about once
  // per enqueue batch at scale. 10000 pages (~40 MB of WAL) makes them rare and sequential;
  // journal_size_limit then truncates the WAL file back after a checkpoint.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
}

/** Largest url_hash + 1: urlHash() returns 53 bits. */
const SLOTS = 2 ** 53;

/** The slot after `slot`, wrapping around. */
export const nextSlot = (slot: number): number => (slot + 1) % SLOTS;

/**
 * Version 1 -> 2: the dedupe index (job, url_hash) becomes UNIQUE. Version 1 stored the
 * colliding URLs of a hash under that same hash; all but the first (lowest id) move to the
 * next free slot, which keeps each reachable from its hash. Nothing else changes: tasks,
 * dead letters, counters and seq are left as they are.
 */
function migrateV1(db: Database.Database): void {
  const taken = db
    .prepare<[number, number], number>('SELECT 1 FROM tasks WHERE job = ? AND url_hash = ?')
    .pluck();
  const move = db.prepare<[number, number]>('UPDATE tasks SET url_hash = ? WHERE id = ?');
  const ids = db
    .prepare<[number, number], number>('SELECT id FROM tasks WHERE job = ? AND url_hash = ? ORDER BY id')
    .pluck();
  const groups = db
    .prepare<[], { job: number; hash: number }>(
      'SELECT job, url_hash AS hash FROM tasks GROUP BY job, url_hash HAVING count(*) > 1',
    )
    .all();
  for (const { job, hash } of groups) {
    for (const id of ids.all(job, hash).slice(1)) {
      let slot = nextSlot(hash);
      while (taken.get(job, slot) !== undefined) slot = nextSlot(slot);
      move.run(slot, id);
    }
  }
  db.exec('DROP INDEX IF EXISTS tasks_key');
}

/** Creates, upgrades or checks the schema. Throws on a file written by a newer schema version. */
export function migrate(db: Database.Database): void {
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version > SCHEMA_VERSION) {
    throw new CrawldError(
      `frontier database has schema version ${version}; this build supports ${SCHEMA_VERSION}`,
    );
  }
  db.transaction(() => {
    // The file may have changed since the read above (another instance migrated it).
    const current = db.pragma('user_version', { simple: true }) as number;
    if (current === 1) migrateV1(db);
    db.exec(DDL);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
