/**
 * Schema and connection settings of the SQLite frontier. Nothing scales with the queue in
 * memory (1,000,000 queued URLs in well under 250 MB RSS): the queue lives in indexes, the
 * counters the hot paths need in a small table.
 *
 * Pending is split into 'ready' and 'delayed' so that the lease index holds only leasable
 * rows, not a block of future retries and recrawls walked on every lease.
 *
 * Dedupe (schema 3) lives in two tables of (job, slot) -> task id: new URLs dirty random pages
 * of any index, so new slots go to the small dedupe_new (all cached) and move to dedupe in key
 * order, a slice per enqueue (dedupe.ts). Figures: docs/performance.md.
 */
import type Database from 'better-sqlite3';
import { CrawldError } from '../../../core/errors.js';

/** 2: UNIQUE dedupe index, collisions probed. 3: dedupe tables, ids given. 4: request_url.
 *  5: seq is the fair lease-order tag (fair.ts); host_tags and meta 'vtime' added. */
export const SCHEMA_VERSION = 5;

/** Fixed page-cache size; the database file itself may be far larger. */
const CACHE_KIB = 32 * 1024;

export const DDL = `
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);

-- job is an integer key into jobs: job ids are repeated on every row and in the dedupe
-- tables, and an integer costs 1-2 bytes where a UUID costs 36.
-- id is given, not assigned: a new task's id is taken from meta 'seq', known before the row
-- is written (the dedupe row that names it is written first). meta 'seq' only grows and is
-- past every id (migration 2 -> 3 makes sure of that for older files), so ids never repeat;
-- they have gaps (duplicates use up ids), which nothing minds. The seq column is the task's
-- place in the lease order (fair.ts; up to schema 4 it was the id). url_hash is the
-- task's dedupe slot, kept so that the dedupe tables can be rebuilt from tasks.
CREATE TABLE IF NOT EXISTS tasks (
  id INTEGER PRIMARY KEY,
  job INTEGER NOT NULL,
  url TEXT NOT NULL,
  url_hash INTEGER NOT NULL,
  host TEXT NOT NULL,
  -- NULL when the URL to request is url itself (most links): no bytes for the common case.
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
  dead_reason TEXT,
  request_url TEXT
);

-- Dedupe for the life of the frontier (rows are never deleted): (job, slot) -> task id. Keyed
-- by a 53-bit hash of the URL, not the URL: short keys make 4x fewer pages to dirty, cache
-- and checkpoint. A slot is a hash, but not always the URL's own: a URL whose slot holds
-- another URL (a collision) takes the next free slot (hash + 1, + 2, ...; open addressing,
-- linear probing), so a lookup walks from the URL's hash until it finds the URL or a free
-- slot. Rows are never deleted and keep their slot, so such a run of taken slots never
-- breaks: a collision never hides a URL.
-- Two tables, one set of slots (a slot is in one of them, never both): dedupe_new takes new
-- slots and stays small; rows move from it to dedupe in key order (dedupe.ts), and
-- 'dedupe_new' in meta is its row count, 'merge_job' and 'merge_hash' where the next move
-- starts. WITHOUT ROWID: the key is the table, one B-tree, no separate index.
CREATE TABLE IF NOT EXISTS dedupe (
  job INTEGER NOT NULL,
  url_hash INTEGER NOT NULL,
  id INTEGER NOT NULL,
  PRIMARY KEY (job, url_hash)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS dedupe_new (
  job INTEGER NOT NULL,
  url_hash INTEGER NOT NULL,
  id INTEGER NOT NULL,
  PRIMARY KEY (job, url_hash)
) WITHOUT ROWID;
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

-- 'seq' is the next task id. 'vtime' is the largest lease-order tag leased so far
-- (fair.ts); a file from schema 4 or older starts it at 'seq', past every task it
-- holds, so its queue keeps its order. They and the dedupe entries (see dedupe) are read and
-- written inside each write transaction rather than cached, so two instances on one file
-- (daemon + CLI) never hand out the same id or lose a count.
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (key, value) VALUES ('seq', 1), ('dedupe_new', 0), ('merge_job', -1),
  ('merge_hash', -1);
INSERT OR IGNORE INTO meta (key, value) SELECT 'vtime', value FROM meta WHERE key = 'seq';

-- Each host's last lease-order tag (fair.ts). A host without a row starts at vtime.
CREATE TABLE IF NOT EXISTS host_tags (
  host TEXT PRIMARY KEY,
  tag INTEGER NOT NULL
) WITHOUT ROWID;
`;

export function configure(db: Database.Database): void {
  // WAL + NORMAL: a commit survives a process crash or kill -9 (what we promise); a power loss
  // may lose the last transactions. FULL would cap acks at the disk's fsync rate.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // Another instance (a CLI against the daemon's data dir) may hold the write lock briefly.
  db.pragma('busy_timeout = 5000');
  // Rare, sequential checkpoints: the default fsyncs about once per enqueue batch at scale.
  db.pragma('wal_autocheckpoint = 10000');
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  db.pragma(`cache_size = -${CACHE_KIB}`);
  db.pragma('temp_store = MEMORY');
  // Per connection: the hosts a lease skips (excluded.ts), kept between leases.
  db.exec('CREATE TEMP TABLE IF NOT EXISTS lease_exclude (host TEXT PRIMARY KEY) WITHOUT ROWID');
}

/** Largest url_hash + 1: urlHash() returns 53 bits. */
const SLOTS = 2 ** 53;

/** The slot after `slot`, wrapping around. */
export const nextSlot = (slot: number): number => (slot + 1) % SLOTS;

/** 1 -> 2: the dedupe index becomes UNIQUE; all but the first URL of a hash move to the next free slot. */
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

/**
 * 2 -> 3: the dedupe entries move from the index tasks_url to the table dedupe, read in key
 * order; seq is moved past every id (new ids are taken from it). Time: docs/performance.md.
 */
function migrateV2(db: Database.Database): void {
  db.exec(`
    INSERT INTO dedupe (job, url_hash, id) SELECT job, url_hash, id FROM tasks ORDER BY job, url_hash;
    DROP INDEX IF EXISTS tasks_url;
    UPDATE meta SET value = max(value, (SELECT coalesce(max(id), 0) + 1 FROM tasks)) WHERE key = 'seq';
  `);
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
    // 1 -> 2 runs before the DDL, which makes the tables 2 -> 3 fills.
    if (current === 1) migrateV1(db);
    db.exec(DDL);
    if (current === 1 || current === 2) migrateV2(db);
    // 3 -> 4: a nullable column; older tasks keep NULL (requested by their key).
    if (current >= 1 && current <= 3) db.exec('ALTER TABLE tasks ADD COLUMN request_url TEXT');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
