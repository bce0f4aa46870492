import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAdminToken } from '../../src/admin/auth.js';
import { validateConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/core/errors.js';
import { type AdminFixture, call, MAX_BODY, startDaemon, startTarget, TOKEN } from '../helpers/admin.js';
import { readJsonl, tempDir } from '../helpers/cli.js';
import { waitFor } from '../helpers/wait.js';

const POST_ROUTES = ['/api/urls', '/api/pause', '/api/resume', '/api/dlq/redrive'] as const;

describe('admin API', () => {
  let target: Awaited<ReturnType<typeof startTarget>>;
  let fx: AdminFixture;
  let base: string;
  let dataDir: string;

  beforeAll(async () => {
    target = await startTarget();
    dataDir = tempDir('crawld-admin-');
    fx = await startDaemon(dataDir, [
      { id: 'main', seeds: [`${target.origin}/ok/seed`], robots: false },
      {
        id: 'other',
        seeds: [`${target.origin}/ok/other`],
        robots: false,
        recrawlIntervalMs: 3_600_000,
        normalise: { stripTracking: false, sortQuery: false },
      },
    ]);
    base = fx.http.url;
  });
  afterAll(async () => {
    await fx.close();
    await target.close();
  });

  it('serves health, readiness, metrics and stats', async () => {
    expect(await call(base, 'GET', '/healthz')).toMatchObject({ status: 200, body: { ok: true } });
    expect(await call(base, 'GET', '/readyz')).toMatchObject({ status: 200, body: { ready: true } });
    const metrics = await call(base, 'GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.text).toMatch(/^crawld_/m);
    const stats = await call(base, 'GET', '/api/stats');
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ state: 'running', ready: true });
  });

  it('lists jobs with seeds, scope and recrawl interval', async () => {
    const { status, body } = await call(base, 'GET', '/api/jobs', { token: null });
    expect(status).toBe(200);
    const host = new URL(target.origin).host;
    expect(body.jobs).toEqual([
      {
        id: 'main',
        seeds: [`${target.origin}/ok/seed`],
        scope: { hosts: [host], include: [], exclude: [], maxDepth: 100 },
        seedPriority: 0,
        recrawlIntervalMs: null,
      },
      expect.objectContaining({ id: 'other', recrawlIntervalMs: 3_600_000 }),
    ]);
  });

  it('answers unknown routes with 404 JSON', async () => {
    for (const [method, path] of [
      ['GET', '/nope'],
      ['GET', '/api/urls'],
      ['POST', '/api/stats'],
    ] as const) {
      const res = await call(base, method, path);
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: 'not found' });
    }
  });

  it.each(POST_ROUTES)('%s: 401 without or with a wrong token, before reading the body', async (path) => {
    for (const token of [null, 'wrong-token-0123456789', `${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer']) {
      const res = await call(base, 'POST', path, { token, raw: '{not json' });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer realm="crawld"/);
      expect(res.text).not.toContain(TOKEN);
    }
  });

  it.each(POST_ROUTES)('%s: 400 malformed JSON, 413 too large, 415 not JSON', async (path) => {
    const total = async () => {
      const s = await fx.daemon.frontier.stats();
      return s.pending + s.leased + s.done + s.dead;
    };
    const before = await total();
    expect(await call(base, 'POST', path, { raw: '{"urls": [' })).toMatchObject({
      status: 400,
      body: { error: 'malformed JSON' },
    });
    const big = JSON.stringify({ urls: [`http://example.com/${'a'.repeat(MAX_BODY)}`] });
    expect(await call(base, 'POST', path, { raw: big })).toMatchObject({
      status: 413,
      body: { error: 'body too large' },
    });
    expect((await call(base, 'POST', path, { raw: 'hello', type: 'text/plain' })).status).toBe(415);
    // Nothing was enqueued or redriven, and the crawl state did not change.
    expect(await total()).toBe(before);
    expect((await call(base, 'GET', '/api/stats')).body.state).toBe('running');
  });

  it('pause and resume change the scheduler state, reflected in /api/stats', async () => {
    expect(await call(base, 'POST', '/api/pause')).toMatchObject({ status: 200, body: { state: 'paused' } });
    expect((await call(base, 'GET', '/api/stats')).body.state).toBe('paused');
    expect((await call(base, 'GET', '/readyz')).status).toBe(200);
    // Idempotent: pausing a paused crawl is not an error.
    expect(await call(base, 'POST', '/api/pause', { json: {} })).toMatchObject({ status: 200 });
    expect(await call(base, 'POST', '/api/resume')).toMatchObject({
      status: 200,
      body: { state: 'running' },
    });
    expect((await call(base, 'GET', '/api/stats')).body.state).toBe('running');
  });

  it('pause and resume refuse a body with fields', async () => {
    for (const path of ['/api/pause', '/api/resume']) {
      expect(await call(base, 'POST', path, { json: { now: true } })).toEqual(
        expect.objectContaining({
          status: 400,
          body: { error: 'invalid request', issues: ['now: unknown key'] },
        }),
      );
      expect((await call(base, 'POST', path, { json: [1] })).status).toBe(400);
    }
    expect((await call(base, 'GET', '/api/stats')).body.state).toBe('running');
  });

  it('submit: normalises with the job options, enqueues, and re-crawls a done URL', async () => {
    const results = join(dataDir, 'results.jsonl');
    await call(base, 'POST', '/api/pause');
    const before = (await fx.daemon.frontier.stats()).pending;
    const messy = `HTTP://127.0.0.1:${new URL(target.origin).port}/ok/a?utm_source=x&b=2&a=1#frag`;
    const first = await call(base, 'POST', '/api/urls', {
      json: {
        urls: [messy, { url: `${target.origin}/ok/b?utm_source=x&b=2&a=1`, priority: 5, job: 'other' }],
      },
    });
    expect(first).toMatchObject({ status: 202, body: { added: 2, duplicates: 0, dropped: 0 } });
    expect((await fx.daemon.frontier.stats()).pending).toBe(before + 2);
    // The same URLs again while pending: duplicates, nothing new.
    const again = await call(base, 'POST', '/api/urls', { json: { urls: [{ url: messy }] } });
    expect(again.body).toEqual({ added: 0, duplicates: 1, dropped: 0 });

    await call(base, 'POST', '/api/resume');
    const mainUrl = `${target.origin}/ok/a?a=1&b=2`;
    const otherUrl = `${target.origin}/ok/b?utm_source=x&b=2&a=1`; // job 'other' keeps its query
    // Counted by dedupe key: the record's url is the URL as submitted (fragment dropped).
    const fetched = (key: string, job: string) =>
      readJsonl(results).filter((r) => r.key === key && r.jobId === job).length;
    await waitFor(
      () => fetched(mainUrl, 'main') === 1 && fetched(otherUrl, 'other') === 1,
      'both submitted pages',
    );
    expect(readJsonl(results).find((r) => r.key === mainUrl)?.url).toBe(
      `${target.origin}/ok/a?utm_source=x&b=2&a=1`,
    );

    // Done now: an explicit submission starts a new generation.
    const redo = await call(base, 'POST', '/api/urls', {
      json: { urls: [mainUrl], job: 'main', priority: 1 },
    });
    expect(redo.body).toEqual({ added: 1, duplicates: 0, dropped: 0 });
    await waitFor(() => fetched(mainUrl, 'main') === 2, 'the resubmitted page again');
  });

  it('submit: 400 names every bad field and enqueues nothing', async () => {
    const before = await fx.daemon.frontier.stats();
    const res = await call(base, 'POST', '/api/urls', {
      json: {
        urls: [
          'ftp://x/',
          { url: 'not a url' },
          { url: `${target.origin}/ok/z`, priority: 1.5, job: 'ghost', extra: 1 },
          'https://fine.example/',
        ],
        foo: 1,
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid request');
    expect(res.body.issues).toEqual(
      expect.arrayContaining([
        'foo: unknown key',
        'urls[0]: must be an absolute http(s) URL',
        'urls[1].url: must be an absolute http(s) URL',
        'urls[2].extra: unknown key',
        'urls[2].job: unknown job "ghost"',
        'urls[2].priority: must be an integer',
      ]),
    );
    expect(res.body.issues).toHaveLength(6);
    const cases: [unknown, string][] = [
      [{ urls: [] }, 'urls: must be an array of 1 to 10000 URLs'],
      [{ urls: 'http://a.example/' }, 'urls: must be an array of 1 to 10000 URLs'],
      [{ urls: ['http://a.example/'], priority: 'high' }, 'priority: must be an integer'],
      [{ urls: ['http://a.example/'], job: 'ghost' }, 'job: unknown job "ghost"'],
      [['http://a.example/'], '(root): must be a JSON object'],
    ];
    for (const [json, issue] of cases) {
      const r = await call(base, 'POST', '/api/urls', { json });
      expect(r.status).toBe(400);
      expect(r.body.issues).toContain(issue);
    }
    expect((await call(base, 'POST', '/api/urls')).body.issues).toEqual(['(root): must be a JSON object']);
    const after = await fx.daemon.frontier.stats();
    expect(after.pending + after.leased + after.done).toBe(before.pending + before.leased + before.done);
  });
});

describe('admin API without a token', () => {
  it('answers 403 on every mutating route and keeps the reads open', async () => {
    const fx = await startDaemon(
      tempDir('crawld-admin-'),
      [{ id: 'j', seeds: ['http://127.0.0.1:9/'] }],
      null,
    );
    try {
      for (const path of POST_ROUTES) {
        const res = await call(fx.http.url, 'POST', path, { json: {} });
        expect(res.status).toBe(403);
        expect(res.body).toEqual({ error: 'admin API disabled: set http.adminToken or http.adminTokenFile' });
      }
      expect((await call(fx.http.url, 'GET', '/api/jobs')).status).toBe(200);
    } finally {
      await fx.close();
    }
  });
});

describe('resolveAdminToken', () => {
  const http = (h: object) => validateConfig({ http: h }).http;
  it('reads and trims the token file; a literal token passes through', () => {
    const file = join(tempDir(), 'token');
    writeFileSync(file, `${TOKEN}\n`);
    expect(resolveAdminToken(http({ adminTokenFile: file }))).toBe(TOKEN);
    expect(resolveAdminToken(http({ adminToken: TOKEN }))).toBe(TOKEN);
    expect(resolveAdminToken(http({}))).toBeUndefined();
  });
  it('refuses an unreadable or short file, or both sources, without echoing the secret', () => {
    const short = join(tempDir(), 'short');
    writeFileSync(short, 'secret-abc');
    expect(() => resolveAdminToken(http({ adminTokenFile: '/nonexistent/token' }))).toThrow(ConfigError);
    expect(() => resolveAdminToken(http({ adminTokenFile: short }))).toThrow(/at least 16 characters/);
    expect(() => resolveAdminToken(http({ adminTokenFile: short }))).not.toThrow(/secret-abc/);
    expect(() => resolveAdminToken(http({ adminToken: TOKEN, adminTokenFile: short }))).toThrow(/not both/);
  });
});
