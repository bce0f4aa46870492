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
 *
 * Dedupe (schema 3): which URLs each job has seen lives in two tables of (job, slot) -> task
 * id, not in an index on tasks. New URLs land at random places in any dedupe index, so in
 * one index of 1M entries (~4,800 pages) each enqueue of 1000 new URLs dirtied ~900 distinct
 * pages, all written to the WAL at commit and again at checkpoint: half of the enqueue time
 * (commit 13.1 s of ~26 s per 1M URLs, raw better-sqlite3 replica). Page size, cache size,
 * checkpoint interval and sorting a batch did not help. So new slots go to dedupe_new, which
 * stays small (dedupeMergeRows, 20,000 rows: ~100 pages, all cached), and move to dedupe in
 * key order, a slice per enqueue (dedupe.ts): at 1M, ~4 rows land on each big-table
 * page a move writes instead of 1. An enqueue reads dedupe (reads dirty nothing) and writes
 * dedupe_new. The gain shrinks as dedupe grows: at ~5M URLs (~24,000 pages) a move writes
 * about one page per row again, unless dedupeMergeRows grows with it (not measured).
 *
 * Measured at 1M URLs in calls of 1000 (bench/frontier-scale.mjs, taskset -c 1, 3 runs each
 * interleaved with schema 2, in a slow phase of the machine): enqueue 46,359-48,438/s
 * against 33,179-34,828/s (1.39x; CPU 19.5-20.5 s against 24.6-25.1 s; another sitting
 * 43,239-45,783 against 32,089-34,553/s); lease+ack 30,784-35,841/s against
 * 30,369-31,911/s; peak RSS 171-196 MB against 161-189 MB; file size the same (189 MiB),
 * 4,775 + 97 pages of dedupe tables against 4,845 of tasks_url. Part of the gain is
 * the statement journal that OR IGNORE spares (see claim in dedupe.ts): without it,
 * 1.21-1.23x in an earlier sitting. Merges: 2 ms median, 6-11 ms at most per call;
 * whole-table merges of 20,000 rows would take 37-40 ms median, 53 ms at most, for the same
 * total (1.8-2.0 s per 1M).
 */
import type Database from 'better-sqlite3';
import { CrawldError } from '../../../core/errors.js';

/**
 * 2: the dedupe index is UNIQUE, hash collisions are resolved by probing (see dedupe).
 * 3: dedupe moves from the index tasks_url to the tables dedupe and dedupe_new; task ids are
 * given (the seq at insertion).
 * 4: tasks gain request_url, the URL to request when it differs from the dedupe key url
 * (NULL otherwise, and for every task written before).
 * 5: seq is a lease-order tag that gives hosts fair turns (fair.ts), no longer the
 * task's id; host_tags and meta 'vtime' are added (by the DDL, nothing is rewritten).
 */
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

/**
 * Version 2 -> 3: the dedupe entries move from the UNIQUE index tasks_url to the table dedupe,
 * one row per task with its slot, unchanged (all of them go to the big table; dedupe_new
 * starts empty). Read in index order, they are appended to dedupe in key order. seq is moved
 * past every id, since new ids are now taken from it; version 2 files already have that
 * (each task used up a seq, ids counted from 1), so this only guards. The index's pages go
 * to the free list and are reused by dedupe as it grows; the file does not shrink. A 1M-task
 * file takes 0.6 s (one transaction) and grows by dedupe's size, ~20 MB; dropping the index
 * first would reuse its pages but sort 1M rows in memory instead of reading them in order.
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
    // 3 -> 4: a nullable column, added without rewriting rows (tasks already there keep NULL:
    // they are requested by their key, as before).
    if (current >= 1 && current <= 3) db.exec('ALTER TABLE tasks ADD COLUMN request_url TEXT');
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}
