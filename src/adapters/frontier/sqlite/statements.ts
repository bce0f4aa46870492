/** Every statement of the SQLite frontier, prepared once; LIMIT ? bounds each call's event-loop stall. */
import type Database from 'better-sqlite3';

export interface TaskRow {
  id: number;
  seq: number;
  url: string;
  request_url: string | null;
  host: string;
  job: number;
  priority: number;
  depth: number;
  attempts: number;
  generation: number;
  last_error: string | null;
  lease_token: string;
  lease_expires_at: number;
}

export interface DeadRow {
  id: number;
  url: string;
  request_url: string | null;
  job: number;
  priority: number;
  depth: number;
  attempts: number;
  dead_reason: string;
  dead_at: number;
}

const TASK_COLUMNS =
  'id, seq, url, request_url, host, job, priority, depth, attempts, generation, last_error, lease_token, lease_expires_at';
// A random prefix per call plus the row id, made in the UPDATE: one statement leases a batch.
const TAKE =
  "UPDATE tasks SET state = 'leased', lease_token = @token || '.' || id, lease_owner = @owner, " +
  'lease_expires_at = @expiresAt WHERE id IN';
const CLEAR_LEASE = 'lease_token = NULL, lease_owner = NULL, lease_expires_at = NULL';
/** Guard shared by ack, retry and deadLetter: only the holder of the current lease may finish it. */
const HELD = "id = ? AND state = 'leased' AND lease_token = ?";

// The id is given (from meta 'seq', before the dedupe row names it); seq is the lease order (fair.ts).
const COLUMNS =
  'tasks (id, job, url, url_hash, host, priority, depth, state, not_before, seq, request_url) VALUES';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

export function prepareStatements(db: Database.Database) {
  return { ...metaStatements(db), ...enqueueStatements(db), ...leaseStatements(db), ...readStatements(db) };
}

export type Statements = ReturnType<typeof prepareStatements>;

/** The sequence, fair-turn tags, jobs and row counts. */
function metaStatements(db: Database.Database) {
  return {
    seqGet: db.prepare<[], number>("SELECT value FROM meta WHERE key = 'seq'").pluck(),
    seqSet: db.prepare<[number]>("UPDATE meta SET value = ? WHERE key = 'seq'"),
    vtimeGet: db.prepare<[], number>("SELECT value FROM meta WHERE key = 'vtime'").pluck(),
    vtimeRaise: db.prepare<[number]>("UPDATE meta SET value = max(value, ?) WHERE key = 'vtime'"),
    hostTagGet: db.prepare<[string], number>('SELECT tag FROM host_tags WHERE host = ?').pluck(),
    hostTagSet: db.prepare<[string, number]>(
      'INSERT INTO host_tags (host, tag) VALUES (?, ?) ON CONFLICT (host) DO UPDATE SET tag = excluded.tag',
    ),
    hostTagsPrune: db.prepare(
      "DELETE FROM host_tags WHERE tag < (SELECT value FROM meta WHERE key = 'vtime')",
    ),
    jobGet: db.prepare<[string], number>('SELECT id FROM jobs WHERE name = ?').pluck(),
    jobAdd: db.prepare<[string]>('INSERT INTO jobs (name) VALUES (?) ON CONFLICT (name) DO NOTHING'),
    jobName: db.prepare<[number], string>('SELECT name FROM jobs WHERE id = ?').pluck(),

    pendingTotal: db.prepare<[], number>("SELECT total(n) FROM counts WHERE bucket = 'pending'").pluck(),
    leasedCount: db.prepare<[], number>("SELECT count(*) FROM tasks WHERE state = 'leased'").pluck(),
    counts: db.prepare<[], { bucket: string; priority: number; n: number }>(
      'SELECT bucket, priority, n FROM counts WHERE n <> 0 ORDER BY bucket, priority',
    ),
    bump: db.prepare<[string, number, number]>(
      'INSERT INTO counts (bucket, priority, n) VALUES (?, ?, ?) ' +
        'ON CONFLICT (bucket, priority) DO UPDATE SET n = n + excluded.n',
    ),
    delayedCount: db
      .prepare<[number], number>("SELECT count(*) FROM tasks WHERE state = 'delayed' AND not_before > ?")
      .pluck(),
  };
}

/** New tasks and forced re-enqueues. */
function enqueueStatements(db: Database.Database) {
  const insertMany = new Map<number, Database.Statement<unknown[]>>();
  return {
    insert: db.prepare<
      [number, number, string, number, string, number, number, string, number, number, string | null]
    >(`INSERT INTO ${COLUMNS} ${ROW}`),
    /** `rows` new tasks; OR IGNORE spares the statement journal (dedupe.ts claim), the caller checks the count. */
    insertMany: (rows: number) => {
      let stmt = insertMany.get(rows);
      if (stmt === undefined) {
        const values = Array.from({ length: rows }, () => ROW).join(', ');
        stmt = db.prepare<unknown[]>(`INSERT OR IGNORE INTO ${COLUMNS} ${values}`);
        insertMany.set(rows, stmt);
      }
      return stmt;
    },
    // Forced re-enqueue of a done or dead task: a new crawl cycle.
    requeue: db.prepare<[number, number, string, number, number, number]>(
      'UPDATE tasks SET priority = ?, depth = ?, state = ?, not_before = ?, seq = ?, attempts = 0, ' +
        'generation = generation + 1, last_error = NULL, dead_at = NULL, dead_reason = NULL WHERE id = ?',
    ),
  };
}

/** Leases and what ends them: ack (done, recrawl), retry, dead letter (bury), extend. */
function leaseStatements(db: Database.Database) {
  return {
    // Expired leases keep seq and attempts: the task resumes its place in line.
    reclaim: db
      .prepare<[number, number], number>(
        `UPDATE tasks SET state = 'ready', ${CLEAR_LEASE} WHERE id IN (SELECT id FROM tasks ` +
          "WHERE state = 'leased' AND lease_expires_at <= ? ORDER BY lease_expires_at LIMIT ?) RETURNING priority",
      )
      .pluck(),
    promote: db.prepare<[number, number]>(
      "UPDATE tasks SET state = 'ready' WHERE id IN (SELECT id FROM tasks " +
        "WHERE state = 'delayed' AND not_before <= ? ORDER BY not_before LIMIT ?)",
    ),
    take: db.prepare<{ token: string; owner: string; expiresAt: number; max: number }, TaskRow>(
      `${TAKE} (SELECT id FROM tasks WHERE state = 'ready' ORDER BY priority, seq LIMIT @max) ` +
        `RETURNING ${TASK_COLUMNS}`,
    ),
    // Bounded scan: look at the first @scan ready tasks only, skip excluded hosts among them.
    takeExcluding: db.prepare<
      { token: string; owner: string; expiresAt: number; max: number; scan: number },
      TaskRow
    >(
      `${TAKE} (SELECT id FROM (SELECT id, host, priority, seq FROM tasks WHERE state = 'ready' ` +
        'ORDER BY priority, seq LIMIT @scan) WHERE host NOT IN (SELECT host FROM temp.lease_exclude) ' +
        `ORDER BY priority, seq LIMIT @max) RETURNING ${TASK_COLUMNS}`,
    ),
    excludeAdd: db.prepare<[string]>('INSERT OR IGNORE INTO temp.lease_exclude (host) VALUES (?)'),
    excludeDrop: db.prepare<[string]>('DELETE FROM temp.lease_exclude WHERE host = ?'),

    extend: db.prepare<[number, number, string]>(`UPDATE tasks SET lease_expires_at = ? WHERE ${HELD}`),
    // No counter to update: done is derived (see stats), which keeps an ack to two pages.
    done: db.prepare<[number, string]>(`UPDATE tasks SET state = 'done', ${CLEAR_LEASE} WHERE ${HELD}`),
    recrawl: db
      .prepare<[string, number, number, number, string], number>(
        'UPDATE tasks SET state = ?, not_before = ?, seq = ?, attempts = 0, generation = generation + 1, ' +
          `last_error = NULL, ${CLEAR_LEASE} WHERE ${HELD} RETURNING priority`,
      )
      .pluck(),
    retry: db
      .prepare<[string, number, number, number, string, number, string], number>(
        'UPDATE tasks SET state = ?, not_before = ?, seq = ?, attempts = attempts + ?, last_error = ?, ' +
          `${CLEAR_LEASE} WHERE ${HELD} RETURNING priority`,
      )
      .pluck(),
    bury: db
      .prepare<[string, number, string, number, string], number>(
        "UPDATE tasks SET state = 'dead', attempts = attempts + 1, last_error = ?, dead_at = ?, " +
          `dead_reason = ?, ${CLEAR_LEASE} WHERE ${HELD} RETURNING priority`,
      )
      .pluck(),
  };
}

/** What the reads (nextReadyAt, listLeased, listDead) and redrive need. */
function readStatements(db: Database.Database) {
  return {
    readyHeadTime: db
      .prepare<[], number>(
        "SELECT not_before FROM tasks WHERE state = 'ready' ORDER BY priority, seq LIMIT 1",
      )
      .pluck(),
    delayedMin: db
      .prepare<[], number | null>("SELECT min(not_before) FROM tasks WHERE state = 'delayed'")
      .pluck(),
    leaseMin: db
      .prepare<[], number | null>("SELECT min(lease_expires_at) FROM tasks WHERE state = 'leased'")
      .pluck(),
    leased: db.prepare<[], TaskRow>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE state = 'leased' ORDER BY id`),
    leasedBy: db.prepare<[string], TaskRow>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE state = 'leased' AND lease_owner = ? ORDER BY id`,
    ),

    dead: db.prepare<{ job: number | null; limit: number; offset: number }, DeadRow>(
      'SELECT id, url, request_url, job, priority, depth, attempts, dead_reason, dead_at FROM tasks ' +
        "WHERE state = 'dead' AND (@job IS NULL OR job = @job) ORDER BY dead_at, id LIMIT @limit OFFSET @offset",
    ),
    deadIds: db
      .prepare<{ job: number | null }, number>(
        "SELECT id FROM tasks WHERE state = 'dead' AND (@job IS NULL OR job = @job) ORDER BY dead_at, id",
      )
      .pluck(),
    deadHost: db
      .prepare<{ id: number; job: number | null }, string>(
        "SELECT host FROM tasks WHERE id = @id AND state = 'dead' AND (@job IS NULL OR job = @job)",
      )
      .pluck(),
    // Redrive: back to pending, ready now, attempts 0; generation is unchanged (same cycle).
    revive: db
      .prepare<{ now: number; seq: number; id: number; job: number | null }, number>(
        "UPDATE tasks SET state = 'ready', not_before = @now, seq = @seq, attempts = 0, dead_at = NULL, " +
          "dead_reason = NULL WHERE id = @id AND state = 'dead' AND (@job IS NULL OR job = @job) RETURNING priority",
      )
      .pluck(),
  };
}
