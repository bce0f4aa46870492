/**
 * A data dir written by schema version 1 opens with the current build: tasks in every
 * state, dead letters, counters and seq survive, and version 1's hash collisions (rows
 * sharing a url_hash) get slots of their own without losing either URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/adapters/frontier/sqlite.js';
import { nextSlot, SCHEMA_VERSION } from '../../src/adapters/frontier/sqlite-schema.js';
import { urlHash } from '../../src/adapters/frontier/sqlite-tx.js';
import { FakeClock } from '../../src/core/clock.js';

/** Schema version 1, as released (sqlite-schema.ts before the dedupe index became UNIQUE). */
const V1_DDL = `
CREATE TABLE IF NOT EXISTS jobs (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
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
CREATE INDEX IF NOT EXISTS tasks_key ON tasks (job, url_hash);
CREATE INDEX IF NOT EXISTS tasks_ready ON tasks (priority, seq, host) WHERE state = 'ready';
CREATE INDEX IF NOT EXISTS tasks_delayed ON tasks (not_before) WHERE state = 'delayed';
CREATE INDEX IF NOT EXISTS tasks_leased ON tasks (lease_expires_at) WHERE state = 'leased';
CREATE INDEX IF NOT EXISTS tasks_dead ON tasks (dead_at) WHERE state = 'dead';
CREATE TABLE IF NOT EXISTS counts (
  bucket TEXT NOT NULL,
  priority INTEGER NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (bucket, priority)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
  key TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
INSERT OR IGNORE INTO meta (key, value) VALUES ('seq', 1);
`;

const T0 = 1_700_000_000_000;
const url = (path: string) => `http://example.com/${path}`;

interface V1Task {
  id: number;
  job: number;
  path: string;
  hash?: number;
  priority: number;
  state: 'ready' | 'delayed' | 'leased' | 'done' | 'dead';
  seq: number;
  notBefore?: number;
  attempts?: number;
  generation?: number;
  lease?: { token: string; expiresAt: number };
  dead?: { reason: string; at: number };
}

/** The rows a version-1 frontier would hold; hash is set only to forge a collision. */
const TASKS: V1Task[] = [
  { id: 1, job: 1, path: 'ready-p0', priority: 0, state: 'ready', seq: 10 },
  { id: 2, job: 1, path: 'ready-p1', priority: 1, state: 'ready', seq: 11 },
  { id: 3, job: 1, path: 'delayed', priority: 0, state: 'delayed', seq: 12, notBefore: T0 + 3_600_000 },
  {
    id: 4,
    job: 1,
    path: 'leased',
    priority: 0,
    state: 'leased',
    seq: 5,
    lease: { token: 'tok.4', expiresAt: T0 + 60_000 },
  },
  { id: 5, job: 1, path: 'done', priority: 0, state: 'done', seq: 3, generation: 2 },
  {
    id: 6,
    job: 1,
    path: 'dead',
    priority: 2,
    state: 'dead',
    seq: 4,
    attempts: 3,
    dead: { reason: 'http_404', at: T0 - 1000 },
  },
  { id: 7, job: 2, path: 'ready-p0', priority: 0, state: 'ready', seq: 13 },
  // Version 1 kept URLs whose hashes collide under one url_hash; forged here (a real
  // 53-bit collision is out of reach), together with the next slot already taken.
  { id: 8, job: 1, path: 'collides', hash: urlHash(url('ready-p0')), priority: 0, state: 'ready', seq: 14 },
  {
    id: 9,
    job: 1,
    path: 'next-slot',
    hash: nextSlot(urlHash(url('ready-p0'))),
    priority: 0,
    state: 'ready',
    seq: 15,
  },
];

function writeV1(path: string): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(V1_DDL);
  db.pragma('user_version = 1');
  db.prepare("INSERT INTO jobs (id, name) VALUES (1, 'job1'), (2, 'job2')").run();
  const insert = db.prepare(
    'INSERT INTO tasks (id, job, url, url_hash, host, priority, depth, state, not_before, seq, attempts, generation, ' +
      'lease_token, lease_owner, lease_expires_at, last_error, dead_at, dead_reason) ' +
      "VALUES (?, ?, ?, ?, 'example.com', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const t of TASKS) {
    insert.run(
      t.id,
      t.job,
      url(t.path),
      t.hash ?? urlHash(url(t.path)),
      t.priority,
      t.state,
      t.notBefore ?? T0 - 10_000,
      t.seq,
      t.attempts ?? 0,
      t.generation ?? 0,
      t.lease?.token ?? null,
      t.lease ? 'worker-1' : null,
      t.lease?.expiresAt ?? null,
      t.dead ? 'boom' : null,
      t.dead?.at ?? null,
      t.dead?.reason ?? null,
    );
  }
  // The counters version 1 keeps: pending (ready + delayed) and dead by priority, all rows.
  const bump = db.prepare('INSERT INTO counts (bucket, priority, n) VALUES (?, ?, ?)');
  bump.run('pending', 0, 5);
  bump.run('pending', 1, 1);
  bump.run('dead', 2, 1);
  bump.run('all', 0, TASKS.length);
  db.prepare("UPDATE meta SET value = 100 WHERE key = 'seq'").run();
  db.close();
}

describe('sqlite frontier schema migration', () => {
  let dir: string;
  let path: string;
  let frontier: SqliteFrontier | undefined;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crawld-migrate-'));
    path = join(dir, 'frontier.db');
    writeV1(path);
  });
  afterEach(async () => {
    await frontier?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a version-1 file with every task, dead letter, counter and seq intact', async () => {
    const clock = new FakeClock(T0);
    frontier = new SqliteFrontier({ path, clock });
    await frontier.open();

    expect(await frontier.stats()).toEqual({
      pending: 6,
      delayed: 1,
      leased: 1,
      done: 1,
      dead: 1,
      pendingByPriority: { '0': 5, '1': 1 },
    });
    expect(await frontier.listDead()).toEqual([
      {
        id: '6',
        url: url('dead'),
        jobId: 'job1',
        priority: 2,
        depth: 1,
        attempts: 3,
        reason: 'http_404',
        deadAt: T0 - 1000,
      },
    ]);
    expect(await frontier.listLeased()).toMatchObject([{ id: '4', url: url('leased'), leaseToken: 'tok.4' }]);

    // Known URLs stay known, in both jobs; new ones are added after every existing seq.
    expect(
      await frontier.enqueue(
        ['ready-p0', 'delayed', 'leased', 'done', 'dead'].map((p) => ({ url: url(p), jobId: 'job1' })),
      ),
    ).toEqual({ added: 0, duplicates: 5, dropped: 0 });
    expect(await frontier.enqueue([{ url: url('ready-p0'), jobId: 'job2' }])).toEqual({
      added: 0,
      duplicates: 1,
      dropped: 0,
    });
    expect(await frontier.enqueue([{ url: url('new'), jobId: 'job1' }])).toEqual({
      added: 1,
      duplicates: 0,
      dropped: 0,
    });

    const leased = await frontier.lease({ max: 100, leaseMs: 60_000, owner: 'w' });
    expect(leased.map((t) => `${t.jobId}:${new URL(t.url).pathname.slice(1)}`)).toEqual([
      'job1:ready-p0',
      'job2:ready-p0',
      'job1:collides',
      'job1:next-slot',
      'job1:new',
      'job1:ready-p1',
    ]);
    // A forced re-enqueue of the dead task revives it (counters move from dead to pending).
    expect(await frontier.enqueue([{ url: url('dead'), jobId: 'job1', force: true }])).toMatchObject({
      added: 1,
    });
    expect(await frontier.stats()).toMatchObject({ pending: 2, delayed: 1, leased: 7, dead: 0, done: 1 });
  });

  it('gives each URL of a version-1 collision a slot of its own and makes the index unique', async () => {
    frontier = new SqliteFrontier({ path, clock: new FakeClock(T0) });
    await frontier.open();
    await frontier.close();
    frontier = undefined;

    const db = new Database(path, { readonly: true });
    try {
      expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
      const indexes = db
        .prepare<[], { name: string; unique: number }>(
          'SELECT name, "unique" FROM pragma_index_list(\'tasks\')',
        )
        .all();
      expect(indexes.map((i) => i.name)).not.toContain('tasks_key');
      expect(indexes).toContainEqual(expect.objectContaining({ name: 'tasks_url', unique: 1 }));
      const slot = (id: number) => db.prepare('SELECT url_hash FROM tasks WHERE id = ?').pluck().get(id);
      const h = urlHash(url('ready-p0'));
      // The lowest id keeps the shared hash; the other takes the next free slot, past the taken one.
      expect([slot(1), slot(8), slot(9)]).toEqual([h, nextSlot(nextSlot(h)), nextSlot(h)]);
      expect(db.prepare('SELECT count(*) FROM tasks').pluck().get()).toBe(TASKS.length);
      expect(db.prepare("SELECT value FROM meta WHERE key = 'seq'").pluck().get()).toBe(100);
    } finally {
      db.close();
    }
  });

  it('wraps the slot after the largest hash to 0', () => {
    expect(nextSlot(2 ** 53 - 1)).toBe(0);
    expect(nextSlot(41)).toBe(42);
  });
});
