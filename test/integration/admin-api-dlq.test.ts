import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type AdminFixture, call, startDaemon, startTarget } from '../helpers/admin.js';
import { tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

interface Item {
  id: string;
  url: string;
  job: string;
  reason: string;
  attempts: number;
  deadAt: string;
}

/** A daemon whose seeds answer 404, so they land in the dead-letter queue on the first try. */
describe('admin API: dead letters', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let fx: AdminFixture;
  let base: string;
  const dead = async () => (await fx.daemon.frontier.stats()).dead;

  beforeAll(async () => {
    target = await startTarget();
    fx = await startDaemon(tempDir('crawld-dlq-'), [
      { id: 'main', seeds: [`${target.origin}/gone/1`, `${target.origin}/gone/2`], robots: false },
      { id: 'other', seeds: [`${target.origin}/ok/1`], robots: false },
    ]);
    base = fx.http.url;
    await waitFor(async () => (await dead()) === 2, 'both 404 seeds dead-lettered');
  });
  afterAll(async () => {
    await fx.close();
    await target.close();
  });

  it('lists dead letters with id, url, job, reason, attempts and an ISO deadAt', async () => {
    const res = await call(base, 'GET', '/api/dlq', { token: null });
    expect(res.status).toBe(200);
    const items = res.body.items as Item[];
    expect(items.map((i) => i.url).sort()).toEqual([`${target.origin}/gone/1`, `${target.origin}/gone/2`]);
    for (const i of items) {
      expect(i).toEqual({
        id: expect.any(String),
        url: expect.any(String),
        job: 'main',
        reason: 'http_404',
        attempts: 1,
        deadAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
    }
    expect(res.body).toMatchObject({ limit: 100, offset: 0 });
  });

  it('pages with limit and offset and filters by job', async () => {
    const all = (await call(base, 'GET', '/api/dlq')).body.items as Item[];
    const first = (await call(base, 'GET', '/api/dlq?limit=1')).body.items as Item[];
    const second = (await call(base, 'GET', '/api/dlq?limit=1&offset=1')).body.items as Item[];
    expect([...first, ...second]).toEqual(all);
    expect((await call(base, 'GET', '/api/dlq?job=other')).body.items).toEqual([]);
    expect((await call(base, 'GET', '/api/dlq?job=main')).body.items).toHaveLength(2);
  });

  it('400 on bad query parameters', async () => {
    const cases: [string, string][] = [
      ['limit=0', 'limit: must be an integer in [1, 10000]'],
      ['limit=abc', 'limit: must be an integer in [1, 10000]'],
      ['limit=1&limit=2', 'limit: must be an integer in [1, 10000]'],
      ['offset=-1', `offset: must be an integer in [0, ${Number.MAX_SAFE_INTEGER}]`],
      ['job=no%20spaces', 'job: must be a job id (1-64 letters, digits, dot, dash or underscore)'],
      ['foo=1', 'foo: unknown key'],
    ];
    for (const [q, issue] of cases) {
      const res = await call(base, 'GET', `/api/dlq?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body).toEqual({ error: 'invalid request', issues: [issue] });
    }
  });

  it('400 on a bad redrive body, and nothing moves', async () => {
    const cases: [unknown, string][] = [
      [{ ids: 'x' }, 'ids: must be an array of at most 10000 ids'],
      [{ ids: [1] }, 'ids[0]: must be a non-empty string'],
      [{ ids: [''] }, 'ids[0]: must be a non-empty string'],
      [{ job: 5 }, 'job: must be a job id (1-64 letters, digits, dot, dash or underscore)'],
      [{ all: true }, 'all: unknown key'],
      [['x'], '(root): must be a JSON object'],
    ];
    for (const [json, issue] of cases) {
      const res = await call(base, 'POST', '/api/dlq/redrive', { json });
      expect(res.status).toBe(400);
      expect(res.body.issues).toEqual([issue]);
    }
    expect(await dead()).toBe(2);
  });

  it('redrives by id, then the rest with an empty body, and the scheduler picks them up', async () => {
    await call(base, 'POST', '/api/pause');
    const items = (await call(base, 'GET', '/api/dlq')).body.items as Item[];
    const one = items[0]!;
    expect(await call(base, 'POST', '/api/dlq/redrive', { json: { job: 'other' } })).toMatchObject({
      status: 200,
      body: { redriven: 0 },
    });
    expect(
      (await call(base, 'POST', '/api/dlq/redrive', { json: { ids: [one.id, '999999'] } })).body,
    ).toEqual({
      redriven: 1,
    });
    expect(await dead()).toBe(1);
    expect((await call(base, 'POST', '/api/dlq/redrive')).body).toEqual({ redriven: 1 });
    const stats = await fx.daemon.frontier.stats();
    expect(stats).toMatchObject({ dead: 0 });
    expect(stats.pending).toBeGreaterThanOrEqual(2);

    // Resumed, they are fetched again, answer 404 again and come back with attempts reset.
    await call(base, 'POST', '/api/resume');
    await waitFor(async () => (await dead()) === 2, 'both redriven pages dead-lettered again');
    const again = (await call(base, 'GET', '/api/dlq')).body.items as Item[];
    expect(again.map((i) => i.attempts)).toEqual([1, 1]);
  });

  it('answers 500 JSON without a stack when a handler fails', async () => {
    const spy = vi.spyOn(fx.daemon.frontier, 'listDead').mockRejectedValueOnce(new Error('disk on fire'));
    try {
      const res = await call(base, 'GET', '/api/dlq');
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: 'internal error' });
      expect(res.text).not.toMatch(/disk on fire|at .*\.ts/);
    } finally {
      spy.mockRestore();
    }
  });
});
