import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { urlHash } from '../../src/adapters/frontier/sqlite/dedupe.js';
import {
  SqliteFrontier,
  type SqliteFrontierOptions,
} from '../../src/adapters/frontier/sqlite/sqlite-frontier.js';
import { nextSlot } from '../../src/adapters/frontier/sqlite/sqlite-schema.js';
import { FakeClock } from '../../src/core/clock.js';
import { lease, paths, req, url } from '../helpers/frontier-contract.js';
import {
  COLLIDING,
  dedupeRows,
  expectBookkeeping,
  metaValue,
  moveSlotTo,
  slotOf,
} from '../helpers/sqlite-dedupe.js';
import { frontierContract } from './frontier-contract.js';

const contract =
  (extra: Partial<SqliteFrontierOptions>) => async (clock: FakeClock, opts: { maxPending?: number }) => {
    const dir = mkdtempSync(join(tmpdir(), 'crawld-frontier-'));
    const frontier = new SqliteFrontier({ path: join(dir, 'frontier.db'), clock, ...extra, ...opts });
    return {
      frontier,
      cleanup: async () => {
        await frontier.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  };

/**
 * Frontiers on one fresh file per test (in a nested directory when `nested`), all closed and the
 * directory removed after it. Call in a describe block: it registers beforeEach/afterEach.
 */
function frontiersOnOneFile(prefix: string, nested: boolean) {
  const clock = new FakeClock();
  const open: SqliteFrontier[] = [];
  let dir = '';
  let path = '';
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    path = nested ? join(dir, 'nested', 'frontier.db') : join(dir, 'frontier.db');
  });
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const make = async (extra: Partial<SqliteFrontierOptions> = {}) => {
    const f = new SqliteFrontier({ path, clock, ...extra });
    open.push(f);
    await f.open();
    return f;
  };
  return { clock, make, path: () => path };
}

frontierContract('sqlite', contract({}), 'fair');
// Again with every URL but the newest in the big dedupe table, so that each case also
// covers slots found after their row moved (the default moves rows only past 20,000).
frontierContract('sqlite (dedupe rows moving)', contract({ dedupeMergeRows: 1 }), 'fair');

describe('sqlite frontier specifics', () => {
  /** Requests on one host: `on('a.example')('a1')`. */
  const on = (host: string) => (p: string) => req(p, { url: url(p, host) });
  const { clock, make, path: dbPath } = frontiersOnOneFile('crawld-frontier-', true);

  it('lets two instances share one file: dedupe, FIFO and counters stay consistent', async () => {
    const a = await make();
    const b = await make();
    await a.enqueue([req('x')]);
    expect(await b.enqueue([req('x'), req('y')])).toEqual({ added: 1, duplicates: 1, dropped: 0 });
    await a.enqueue([req('z')]);
    const [x, y] = await lease(b, 2);
    await a.deadLetter(x!, 'http_404');
    expect(await b.listDead()).toMatchObject([{ url: url('x'), reason: 'http_404' }]);
    expect(await a.redrive()).toBe(1);
    expect(await b.ack(y!)).toBe(true);
    expect(await a.stats()).toMatchObject({ pending: 2, leased: 0, done: 1, dead: 0 });
    expect(paths(await lease(a))).toEqual(['z', 'x']);
  });

  it('does not let two URLs whose hashes collide hide each other', async () => {
    const [a, b] = COLLIDING;
    expect(urlHash(a)).toBe(urlHash(b));
    const f = await make();
    expect(await f.enqueue([{ url: a, jobId: 'job1' }])).toMatchObject({ added: 1 });
    expect(await f.enqueue([{ url: b, jobId: 'job1' }])).toEqual({ added: 1, duplicates: 0, dropped: 0 });
    expect(slotOf(dbPath(), b)).toEqual({ table: 'dedupe_new', slot: nextSlot(urlHash(a)) });
    // A second instance: no seen-URL cache in the way, both are found by probing.
    const g = await make();
    expect(await g.enqueue([b, a].map((u) => ({ url: u, jobId: 'job1' })))).toEqual({
      added: 0,
      duplicates: 2,
      dropped: 0,
    });
    expect((await lease(f)).map((t) => t.url)).toEqual([a, b]);
  });

  it('keeps the first of two requests for one URL in a batch, within a chunk and across chunks', async () => {
    const f = await make();
    const filler = Array.from({ length: 55 }, (_, i) => req(`f${i}`, { priority: 5 }));
    const batch = [
      req('a', { priority: 2, depth: 1 }),
      req('a', { depth: 2 }),
      ...filler,
      req('a', { depth: 3 }),
    ];
    expect(await f.enqueue(batch)).toEqual({ added: 56, duplicates: 2, dropped: 0 });
    expect(await lease(f, 1)).toMatchObject([{ url: url('a'), priority: 2, depth: 1 }]);
  });

  it('refuses a negative dedupeMergeRows', () => {
    expect(() => new SqliteFrontier({ path: dbPath(), clock, dedupeMergeRows: -1 })).toThrow(
      /dedupeMergeRows/,
    );
  });

  it('rolls back a failing enqueue whole, alone or sharing a commit with other calls', async () => {
    const f = await make();
    const raw = new Database(dbPath());
    raw.exec(
      "CREATE TRIGGER boom BEFORE INSERT ON tasks WHEN NEW.url LIKE '%boom%' BEGIN SELECT RAISE(ABORT, 'boom'); END",
    );
    raw.close();
    // 60 requests: the first 50 go in by one statement, then the second one fails.
    const doomed = [...Array.from({ length: 59 }, (_, i) => req(`a${i}`)), req('boom')];
    await expect(f.enqueue(doomed)).rejects.toThrow(/boom/);
    expect(await f.stats()).toMatchObject({ pending: 0, done: 0 });
    // In one turn of the event loop: one commit, the failing call rolled back alone.
    const [bad, good] = await Promise.allSettled([f.enqueue(doomed), f.enqueue([req('a0'), req('z')])]);
    expect(bad.status).toBe('rejected');
    expect(good).toEqual({ status: 'fulfilled', value: { added: 2, duplicates: 0, dropped: 0 } });
    expect(paths(await lease(f))).toEqual(['a0', 'z']);
    expectBookkeeping(dbPath());
  });

  it('bounds the excludeHosts scan to leaseScanLimit ready tasks', async () => {
    const f = await make({ leaseScanLimit: 3 });
    // Three busy hosts, each with a task in the first turn: the free host's task is the
    // fourth ready task (hosts in one turn go in name order).
    const busy = (p: string) => req(p, { url: url(p, `busy${p.slice(1)}.example.com`) });
    await f.enqueue([busy('b1'), busy('b2'), busy('b3'), req('free')]);
    const excludeHosts = new Set(['busy1.example.com', 'busy2.example.com', 'busy3.example.com']);
    expect(await lease(f, 10, { excludeHosts })).toEqual([]);
    expect(paths(await lease(f, 2))).toEqual(['b1', 'b2']);
    expect(paths(await lease(f, 10, { excludeHosts }))).toEqual(['free']);
  });

  it('gives hosts fair turns: a backlog does not hold the front, and each host stays FIFO', async () => {
    const f = await make();
    const [a, b, c] = [on('a.example'), on('b.example'), on('c.example')];
    await f.enqueue([a('a1'), a('a2'), a('a3'), a('a4'), a('a5')]);
    expect(paths(await lease(f, 1))).toEqual(['a1']);
    // b found after a's backlog, in two calls: its first task goes in the current turn.
    await f.enqueue([b('b1')]);
    await f.enqueue([b('b2'), b('b3'), c('c1')]);
    // Hosts within one turn go in name order.
    const leased = await lease(f, 3);
    expect(paths(leased)).toEqual(['b1', 'c1', 'a2']);
    const [, c1, a2] = leased;
    // A retry (and a recrawl) goes to the back of its host's turns, not of the whole queue.
    await f.retry(a2!, { at: 0, reason: 'http_503', chargeAttempt: true });
    await f.ack(c1!, { recrawlAt: 0 });
    await f.enqueue([c('c2')]);
    expect(paths(await lease(f))).toEqual(['b2', 'c1', 'a3', 'b3', 'c2', 'a4', 'a5', 'a2']);
  });

  it('gives a redriven dead letter the next turn of its host', async () => {
    const f = await make();
    const [a, b] = [on('a.example'), on('b.example')];
    await f.enqueue([a('a1'), a('a2'), a('a3'), b('b1'), b('b2'), b('b3')]);
    const [first] = await lease(f, 1);
    expect(paths([first!])).toEqual(['a1']);
    await f.deadLetter(first!, 'http_404');
    expect(await f.redrive()).toBe(1);
    expect(paths(await lease(f))).toEqual(['b1', 'a2', 'b2', 'a3', 'b3', 'a1']);
  });

  it('keeps host_tags to hosts with work in the current turn or later', async () => {
    const f = await make();
    await f.enqueue([on('a.example')('a1'), on('b.example')('b1'), on('b.example')('b2')]);
    for (const t of await lease(f, 3)) await f.ack(t);
    await f.close();
    await make();
    // a's last tag (1) is behind the turns leased (2), b's is not: only b keeps a row.
    const db = new Database(dbPath(), { readonly: true });
    expect(db.prepare('SELECT host FROM host_tags').pluck().all()).toEqual(['b.example']);
    db.close();
  });

  it('refuses a database written by a newer schema', async () => {
    const f = await make();
    await f.close();
    const raw = new Database(dbPath());
    raw.pragma('user_version = 99');
    raw.close();
    await expect(make()).rejects.toThrow(/schema version 99/);
  });
});

describe('sqlite frontier dedupe tables', () => {
  const { make, path: dbPath } = frontiersOnOneFile('crawld-dedupe-', false);
  const job1 = (u: string) => ({ url: u, jobId: 'job1' });
  const none = { added: 0, duplicates: 0, dropped: 0 };
  /**
   * Enqueues `urls` from instances that have none of them in their seen-URL cache, in one
   * call by the batched dbPath(), then one by one by the row-by-row one (maxPending close).
   */
  const expectAllKnown = async (urls: readonly string[]) => {
    const batched = await make();
    expect(await batched.enqueue(urls.map(job1))).toEqual({ ...none, duplicates: urls.length });
    const pending = (await batched.stats()).pending;
    const rowByRow = await make({ maxPending: pending });
    for (const u of urls) expect(await rowByRow.enqueue([job1(u)])).toEqual({ ...none, duplicates: 1 });
  };

  it('finds a duplicate in dedupe_new before its row moves and in dedupe after', async () => {
    const f = await make({ dedupeMergeRows: 3 });
    const urls = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((p) => url(p));
    expect(await f.enqueue(urls.map(job1))).toEqual({ ...none, added: 8 });
    const rows = dedupeRows(dbPath());
    expect(rows.map((r) => r.table)).toEqual([...Array(5).fill('dedupe'), ...Array(3).fill('dedupe_new')]);
    expect(expectBookkeeping(dbPath())).toBe(3);
    const moved = rows.find((r) => r.table === 'dedupe')!.url;
    const recent = rows.find((r) => r.table === 'dedupe_new')!.url;
    await expectAllKnown([moved]);
    await expectAllKnown([recent]);
    await expectAllKnown(urls);
    expect(expectBookkeeping(dbPath())).toBe(3);
  });

  it('puts a colliding URL past a slot held in dedupe, and finds it there', async () => {
    const [first, second] = COLLIDING;
    await (await make({ dedupeMergeRows: 0 })).enqueue([job1(first)]);
    expect(slotOf(dbPath(), first)).toEqual({ table: 'dedupe', slot: urlHash(first) });
    // Its slot is taken in dedupe: the batched claim skips it, and the probe goes on in dedupe_new.
    expect(await (await make()).enqueue([job1(second)])).toEqual({ ...none, added: 1 });
    expect(slotOf(dbPath(), second)).toEqual({ table: 'dedupe_new', slot: nextSlot(urlHash(first)) });
    await expectAllKnown([second, first]);
    // Once both have moved, both are still found.
    await (await make({ dedupeMergeRows: 0 })).enqueue([job1(url('z'))]);
    expect(dedupeRows(dbPath()).every((r) => r.table === 'dedupe')).toBe(true);
    await expectAllKnown([second, first, url('z')]);
    expectBookkeeping(dbPath());
  });

  it('finds a colliding URL in dedupe past a slot held in dedupe_new', async () => {
    const [first, second] = COLLIDING;
    const f = await make();
    expect(await f.enqueue([first, second].map(job1))).toEqual({ ...none, added: 2 });
    moveSlotTo(dbPath(), second, 'dedupe');
    expect(dedupeRows(dbPath()).map((r) => [r.table, r.slot, r.url])).toEqual([
      ['dedupe', nextSlot(urlHash(first)), second],
      ['dedupe_new', urlHash(first), first],
    ]);
    await expectAllKnown([second, first]);
    // A third URL with a free slot of its own is unaffected.
    expect(await (await make()).enqueue([job1(url('third'))])).toEqual({ ...none, added: 1 });
    expectBookkeeping(dbPath());
  });

  it('restarts a done or dead task by force after its dedupe row moved', async () => {
    const f = await make({ dedupeMergeRows: 0 });
    await f.enqueue([req('a'), req('b')]);
    expect(dedupeRows(dbPath()).map((r) => r.table)).toEqual(['dedupe', 'dedupe']);
    const [a, b] = await lease(f, 2);
    expect(await f.ack(a!)).toBe(true);
    expect(await f.deadLetter(b!, 'http_500')).toBe(true);
    const g = await make({ dedupeMergeRows: 0 });
    expect(await g.enqueue([req('a', { force: true }), req('b', { force: true, priority: 1 })])).toEqual({
      ...none,
      added: 2,
    });
    expect(await g.stats()).toMatchObject({ pending: 2, done: 0, dead: 0 });
    // The same tasks, next generation: no new row, no new slot.
    expect((await lease(g)).map((t) => [t.id, t.generation, t.priority])).toEqual([
      [a!.id, 1, 0],
      [b!.id, 1, 1],
    ]);
    expect(dedupeRows(dbPath())).toHaveLength(2);
    await expectAllKnown([url('a'), url('b')]);
  });

  it('moves the excess of dedupe_new to dedupe in key order, from a cursor that wraps', async () => {
    const f = await make({ dedupeMergeRows: 3 });
    const key = (r: { slot: number }) => r.slot; // one job: the slot orders the keys
    let cursor = -1;
    for (let i = 0; i < 40; i++) {
      const before = new Set(
        dedupeRows(dbPath())
          .filter((r) => r.table === 'dedupe')
          .map((r) => r.url),
      );
      await f.enqueue([req(`u${i}`)]);
      const rows = dedupeRows(dbPath());
      const moved = rows.filter((r) => r.table === 'dedupe' && !before.has(r.url));
      if (i < 3) {
        expect(moved).toEqual([]);
        continue;
      }
      // The one row moved is the first after the cursor among those in dedupe_new before it moved.
      const candidates = rows
        .filter((r) => !before.has(r.url))
        .map(key)
        .sort((x, y) => x - y);
      const next = candidates.find((k) => k > cursor) ?? candidates[0]!;
      expect(moved.map(key)).toEqual([next]);
      cursor = next;
      expect([metaValue(dbPath(), 'merge_job'), metaValue(dbPath(), 'merge_hash')]).toEqual([
        1,
        moved[0]!.slot,
      ]);
      expect(expectBookkeeping(dbPath())).toBe(3);
    }
    await expectAllKnown(Array.from({ length: 40 }, (_, i) => url(`u${i}`)));
  });

  it('fails an enqueue whole rather than lose a slot or a task to a broken file', async () => {
    const f = await make({ dedupeMergeRows: 1 });
    await f.enqueue([req('a')]);
    const raw = new Database(dbPath());
    // A slot in both tables: the move to dedupe would drop one of the two rows.
    raw.prepare('INSERT INTO dedupe SELECT * FROM dedupe_new').run();
    await expect(f.enqueue([req('b')])).rejects.toThrow(/both dedupe tables/);
    raw.prepare('DELETE FROM dedupe').run();
    // seq behind the ids: a new task's id is taken.
    raw.prepare("UPDATE meta SET value = (SELECT id FROM tasks) WHERE key = 'seq'").run();
    raw.close();
    await expect(f.enqueue([req('c')])).rejects.toThrow(/task id is taken/);
    expect(await f.stats()).toMatchObject({ pending: 1 });
    expectBookkeeping(dbPath());
  });

  it('keeps the row count right with instances of different thresholds sharing the file', async () => {
    const a = await make({ dedupeMergeRows: 2 });
    const b = await make({ dedupeMergeRows: 7 });
    const urls: string[] = [];
    let fresh = 0; // rows in dedupe_new
    for (let i = 0; i < 12; i++) {
      const batch = Array.from({ length: i % 4 === 0 ? 60 : i + 1 }, (_, j) => url(`p${i}-${j}`));
      // With the first half of all URLs so far again: duplicates of rows in either table.
      const again = [...urls, ...batch].slice(0, (urls.length + batch.length) >> 1);
      urls.push(...batch);
      const [f, threshold] = i % 2 ? [a, 2] : [b, 7];
      expect(await f.enqueue([...again, ...batch].map(job1))).toEqual({
        ...none,
        added: batch.length,
        duplicates: again.length,
      });
      fresh = Math.min(fresh + batch.length, threshold);
      expect(expectBookkeeping(dbPath())).toBe(fresh);
    }
    await expectAllKnown(urls);
  });
});
