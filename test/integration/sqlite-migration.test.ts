/**
 * Data dirs written by schema versions 1 and 2 open with the current build: tasks in every
 * state, dead letters, counters and seq survive. Version 1's hash collisions (rows sharing a
 * url_hash) get slots of their own without losing either URL (1 -> 2), and the dedupe
 * entries move from the index tasks_url to the table dedupe (2 -> 3), collisions included.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { urlHash } from '../../src/adapters/frontier/sqlite/dedupe.js';
import { SqliteFrontier } from '../../src/adapters/frontier/sqlite/sqlite-frontier.js';
import { nextSlot, SCHEMA_VERSION } from '../../src/adapters/frontier/sqlite/sqlite-schema.js';
import { FakeClock } from '../../src/core/clock.js';
import { COLLIDING, dedupeRows } from '../helpers/sqlite-dedupe.js';

/**
 * Cuts a file written by this build back to schema 4: seq is the task id again, and the
 * fair-turn state (host_tags, meta 'vtime') is gone.
 */
function cutBackToV4(path: string): void {
  const raw = new Database(path);
  raw.exec("UPDATE tasks SET seq = id; DROP TABLE host_tags; DELETE FROM meta WHERE key = 'vtime'");
  raw.pragma('user_version = 4');
  raw.close();
}

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

/**
 * Schema version 2, as released: version 1 with the dedupe index UNIQUE under a new name
 * (the two DDLs differ in that line only, comments aside).
 */
const V2_DDL = V1_DDL.replace(
  'CREATE INDEX IF NOT EXISTS tasks_key ON tasks (job, url_hash);',
  'CREATE UNIQUE INDEX IF NOT EXISTS tasks_url ON tasks (job, url_hash);',
);

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

/** The two URLs of a real hash collision (same urlHash), as paths. */
const [COLLIDES_A, COLLIDES_B] = COLLIDING.map((u) => new URL(u).pathname.slice(1)) as [string, string];

/**
 * The rows a version-2 frontier would hold: as version 1's, but version 2 resolved a
 * collision when the second URL came, by putting it in the next free slot.
 */
const TASKS_V2: V1Task[] = [
  ...TASKS.slice(0, 7),
  { id: 8, job: 1, path: COLLIDES_A, priority: 0, state: 'ready', seq: 14 },
  {
    id: 9,
    job: 1,
    path: COLLIDES_B,
    hash: nextSlot(urlHash(url(COLLIDES_A))),
    priority: 0,
    state: 'ready',
    seq: 15,
  },
];

function writeFile(path: string, version: 1 | 2, tasks: readonly V1Task[], seq: number): void {
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec(version === 1 ? V1_DDL : V2_DDL);
  db.pragma(`user_version = ${version}`);
  db.prepare("INSERT INTO jobs (id, name) VALUES (1, 'job1'), (2, 'job2')").run();
  const insert = db.prepare(
    'INSERT INTO tasks (id, job, url, url_hash, host, priority, depth, state, not_before, seq, attempts, generation, ' +
      'lease_token, lease_owner, lease_expires_at, last_error, dead_at, dead_reason) ' +
      "VALUES (?, ?, ?, ?, 'example.com', ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
  );
  for (const t of tasks) {
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
  // The counters versions 1 and 2 keep: pending (ready + delayed) and dead by priority, all rows.
  const bump = db.prepare('INSERT INTO counts (bucket, priority, n) VALUES (?, ?, ?)');
  bump.run('pending', 0, 5);
  bump.run('pending', 1, 1);
  bump.run('dead', 2, 1);
  bump.run('all', 0, tasks.length);
  db.prepare("UPDATE meta SET value = ? WHERE key = 'seq'").run(seq);
  db.close();
}

/** The schema version, the indexes on tasks, the dedupe tables and seq, read from the file. */
function readLayout(path: string) {
  const db = new Database(path, { readonly: true });
  const keys = (table: string) =>
    db
      .prepare<[], { job: number; slot: number; id: number }>(
        `SELECT job, url_hash AS slot, id FROM ${table} ORDER BY job, url_hash`,
      )
      .all();
  try {
    return {
      version: db.pragma('user_version', { simple: true }),
      indexes: db
        .prepare<[], string>("SELECT name FROM pragma_index_list('tasks') ORDER BY name")
        .pluck()
        .all(),
      dedupe: keys('dedupe'),
      dedupeNew: keys('dedupe_new'),
      tasks: keys('tasks'),
      tasksCount: db.prepare('SELECT count(*) FROM tasks').pluck().get(),
      meta: Object.fromEntries(
        db
          .prepare<[], { key: string; value: number }>('SELECT key, value FROM meta')
          .all()
          .map((r) => [r.key, r.value]),
      ),
    };
  } finally {
    db.close();
  }
}

describe('sqlite frontier schema migration', () => {
  let dir: string;
  let path: string;
  let frontier: SqliteFrontier | undefined;
  const opened: SqliteFrontier[] = [];
  /** An instance of its own: no seen-URL cache shared with the others. */
  const open = async (options: { maxPending?: number } = {}) => {
    const f = new SqliteFrontier({ path, clock: new FakeClock(T0), ...options });
    opened.push(f);
    await f.open();
    return f;
  };
  /** Writes a file of schema `version`, lets a frontier migrate it, and returns its layout. */
  const migrated = async (version: 1 | 2, tasks: readonly V1Task[]) => {
    writeFile(path, version, tasks, 100);
    await (await open()).close();
    const layout = readLayout(path);
    expect(layout.version).toBe(SCHEMA_VERSION);
    expect(layout.indexes).toEqual(['tasks_dead', 'tasks_delayed', 'tasks_leased', 'tasks_ready']);
    return layout;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crawld-migrate-'));
    path = join(dir, 'frontier.db');
  });
  afterEach(async () => {
    await frontier?.close();
    for (const f of opened.splice(0)) await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens a version-1 file with every task, dead letter, counter and seq intact', async () => {
    writeFile(path, 1, TASKS, 100);
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

  it('gives each URL of a version-1 collision a slot of its own, then moves the slots to dedupe', async () => {
    const layout = await migrated(1, TASKS);
    const slot = (id: number) => layout.dedupe.find((r) => r.id === id)?.slot;
    const h = urlHash(url('ready-p0'));
    // The lowest id keeps the shared hash; the other takes the next free slot, past the taken one.
    expect([slot(1), slot(8), slot(9)]).toEqual([h, nextSlot(nextSlot(h)), nextSlot(h)]);
    expect(layout.dedupe).toEqual(layout.tasks);
    expect(layout.tasksCount).toBe(TASKS.length);
    expect(layout.meta).toMatchObject({ seq: 100, dedupe_new: 0 });
  });

  it('opens a version-2 file with its collisions: every URL still known, new ones added, counts right', async () => {
    writeFile(path, 2, TASKS_V2, 100);
    const f = await open();
    expect(await f.stats()).toEqual({
      pending: 6,
      delayed: 1,
      leased: 1,
      done: 1,
      dead: 1,
      pendingByPriority: { '0': 5, '1': 1 },
    });
    expect(await f.listLeased()).toMatchObject([{ id: '4', url: url('leased'), leaseToken: 'tok.4' }]);

    // Every URL, the colliding pair included, from instances with no seen-URL cache: one
    // batch (the batched path), then one URL per call near maxPending (row by row).
    const all = TASKS_V2.map((t) => ({ url: url(t.path), jobId: `job${t.job}` }));
    expect(await (await open()).enqueue(all)).toEqual({ added: 0, duplicates: all.length, dropped: 0 });
    const rowByRow = await open({ maxPending: 6 });
    for (const r of all) expect(await rowByRow.enqueue([r])).toEqual({ added: 0, duplicates: 1, dropped: 0 });

    // New URLs go in after every existing task, with ids past every existing one.
    expect(
      await f.enqueue([
        { url: url('new'), jobId: 'job1' },
        { url: url('new'), jobId: 'job2' },
      ]),
    ).toEqual({
      added: 2,
      duplicates: 0,
      dropped: 0,
    });
    const leased = await f.lease({ max: 100, leaseMs: 60_000, owner: 'w' });
    expect(leased.map((t) => `${t.jobId}:${new URL(t.url).pathname.slice(1)}`)).toEqual([
      'job1:ready-p0',
      'job2:ready-p0',
      `job1:${COLLIDES_A}`,
      `job1:${COLLIDES_B}`,
      'job1:new',
      'job2:new',
      'job1:ready-p1',
    ]);
    // Ids are seqs: from 100, less the 9 a batched enqueue of duplicates uses up.
    expect(leased.filter((t) => t.url === url('new')).map((t) => Number(t.id))).toEqual([109, 110]);
    // A forced re-enqueue of the dead task revives it (counters move from dead to pending).
    expect(await f.enqueue([{ url: url('dead'), jobId: 'job1', force: true }])).toMatchObject({ added: 1 });
    expect(await f.stats()).toMatchObject({ pending: 2, delayed: 1, leased: 8, dead: 0, done: 1 });
  });

  it('moves the slots of a version-2 file from tasks_url to dedupe as they are', async () => {
    const layout = await migrated(2, TASKS_V2);
    expect(layout.dedupe).toEqual(layout.tasks);
    expect(layout.dedupe).toHaveLength(TASKS_V2.length);
    expect(layout.dedupe.filter((r) => r.id >= 8).map((r) => r.slot)).toEqual([
      urlHash(url(COLLIDES_A)),
      nextSlot(urlHash(url(COLLIDES_A))),
    ]);
    expect(layout.dedupeNew).toEqual([]);
    expect(layout.meta).toEqual({ seq: 100, vtime: 100, dedupe_new: 0, merge_job: -1, merge_hash: -1 });
  });

  it('moves seq past every task id, since new ids are taken from it', async () => {
    // Not a state version 2 writes (every task used up a seq), but ids must never repeat.
    writeFile(path, 2, TASKS_V2, 5);
    const f = await open();
    expect(readLayout(path).meta).toMatchObject({ seq: 10 });
    expect(await f.enqueue([{ url: url('new'), jobId: 'job1' }])).toMatchObject({ added: 1 });
    expect(dedupeRows(path).find((r) => r.url === url('new'))).toMatchObject({ table: 'dedupe_new', id: 10 });
  });

  it('opens a version-3 file: its tasks are requested by their key, new ones keep their own URL', async () => {
    // A version-3 file is today's without tasks.request_url and version 5's fair-turn tags:
    // written by this build, then cut back.
    expect(SCHEMA_VERSION).toBe(5);
    const f = await open();
    await f.enqueue([{ url: url('old'), jobId: 'job1' }]);
    await f.close();
    cutBackToV4(path);
    const raw = new Database(path);
    raw.exec('ALTER TABLE tasks DROP COLUMN request_url');
    raw.pragma('user_version = 3');
    raw.close();
    const g = await open();
    expect(readLayout(path).version).toBe(SCHEMA_VERSION);
    await g.enqueue([{ url: url('new'), requestUrl: `${url('new')}?b=2&a=1`, jobId: 'job1' }]);
    const tasks = await g.lease({ max: 10, owner: 'me', leaseMs: 60_000 });
    expect(tasks.map((t) => [t.url, t.requestUrl])).toEqual([
      [url('old'), undefined],
      [url('new'), `${url('new')}?b=2&a=1`],
    ]);
  });

  it('opens a version-4 file: its queue keeps its order, and new tasks take turns after it', async () => {
    const f = await open();
    const at = (host: string, p: string) => ({ url: url(p).replace('example.com', host), jobId: 'job1' });
    await f.enqueue([
      at('a.example', 'a1'),
      at('b.example', 'b1'),
      at('a.example', 'a2'),
      at('a.example', 'a3'),
    ]);
    await f.close();
    cutBackToV4(path);
    const g = await open();
    expect(readLayout(path).version).toBe(SCHEMA_VERSION);
    // Version 4 ordered by id (FIFO across hosts): the old tasks keep that order, and the new
    // ones (a host's backlog or not) go after every one of them, in fair turns.
    await g.enqueue([at('a.example', 'a4'), at('a.example', 'a5'), at('c.example', 'c1')]);
    const tasks = await g.lease({ max: 10, owner: 'me', leaseMs: 60_000 });
    expect(tasks.map((t) => new URL(t.url).pathname.slice(1))).toEqual([
      'a1',
      'b1',
      'a2',
      'a3',
      'a4',
      'c1',
      'a5',
    ]);
  });

  it('wraps the slot after the largest hash to 0', () => {
    expect(nextSlot(2 ** 53 - 1)).toBe(0);
    expect(nextSlot(41)).toBe(42);
  });
});
