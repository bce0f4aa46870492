import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteFrontier } from '../../src/adapters/frontier/sqlite.js';
import { urlHash } from '../../src/adapters/frontier/sqlite-tx.js';
import { FakeClock } from '../../src/core/clock.js';
import { frontierContract } from './frontier-contract.js';
import { lease, paths, req, url } from './frontier-contract-helpers.js';

frontierContract('sqlite', async (clock, opts) => {
  const dir = mkdtempSync(join(tmpdir(), 'crawld-frontier-'));
  const frontier = new SqliteFrontier({ path: join(dir, 'frontier.db'), clock, ...opts });
  return {
    frontier,
    cleanup: async () => {
      await frontier.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('sqlite frontier specifics', () => {
  let dir: string;
  let path: string;
  const clock = new FakeClock();
  const open: SqliteFrontier[] = [];
  const make = async (extra: { leaseScanLimit?: number } = {}) => {
    const f = new SqliteFrontier({ path, clock, ...extra });
    open.push(f);
    await f.open();
    return f;
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'crawld-frontier-'));
    path = join(dir, 'nested', 'frontier.db');
  });
  afterEach(async () => {
    for (const f of open.splice(0)) await f.close();
    rmSync(dir, { recursive: true, force: true });
  });

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
    const f = await make();
    await f.enqueue([req('a')]);
    // Forge a collision: make a's stored hash equal to b's.
    const raw = new Database(path);
    raw.prepare('UPDATE tasks SET url_hash = ? WHERE url = ?').run(urlHash(url('b')), url('a'));
    raw.close();
    expect(await f.enqueue([req('b')])).toEqual({ added: 1, duplicates: 0, dropped: 0 });
    expect(await f.enqueue([req('b')])).toEqual({ added: 0, duplicates: 1, dropped: 0 });
    expect(paths(await lease(f))).toEqual(['a', 'b']);
  });

  it('rolls back a failing enqueue whole, alone or sharing a commit with other calls', async () => {
    const f = await make();
    const raw = new Database(path);
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
  });

  it('bounds the excludeHosts scan to leaseScanLimit ready tasks', async () => {
    const f = await make({ leaseScanLimit: 3 });
    const busy = (p: string) => req(p, { url: url(p, 'busy.example.com') });
    await f.enqueue([busy('b1'), busy('b2'), busy('b3'), req('free')]);
    const excludeHosts = new Set(['busy.example.com']);
    expect(await lease(f, 10, { excludeHosts })).toEqual([]);
    expect(paths(await lease(f, 2))).toEqual(['b1', 'b2']);
    expect(paths(await lease(f, 10, { excludeHosts }))).toEqual(['free']);
  });

  it('refuses a database written by a newer schema', async () => {
    const f = await make();
    await f.close();
    const raw = new Database(path);
    raw.pragma('user_version = 99');
    raw.close();
    await expect(make()).rejects.toThrow(/schema version 99/);
  });
});
