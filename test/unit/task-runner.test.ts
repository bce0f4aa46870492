import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/ports/frontier.js';
import { closeAfterEach } from '../helpers/cleanup.js';
import { readJsonl } from '../helpers/cli.js';
import { html, startEngine, startSite } from '../helpers/engine.js';
import { waitFor } from '../helpers/wait.js';

/**
 * TaskRunner on a FakeClock with a real in-memory frontier: what one task does to the frontier,
 * the sink and the control plane, and when (by the fake clock) a retried task comes back.
 */
const track = closeAfterEach();
type Engine = Awaited<ReturnType<typeof startEngine>>;

async function setUp(routes: Parameters<typeof startSite>[0], retry = { maxAttempts: 3 }) {
  const site = await startSite(routes).then(track);
  const engine = await startEngine({
    retry,
    jobs: [
      {
        id: 'j',
        seeds: [`${site.origin}/`],
        robots: false,
        extract: { fields: { title: { selector: 'h1' } } },
      },
    ],
  }).then(track);
  await engine.frontier.enqueue([{ url: `${site.origin}/`, jobId: 'j' }]);
  return { site, engine };
}

/** Leases the one ready task and runs it under a permit of the real control plane. */
async function runOne(e: Engine, signal = new AbortController().signal) {
  const [task] = await e.frontier.lease({ max: 1, leaseMs: 60_000, owner: 't' });
  if (!task) throw new Error('no task ready');
  const adm = e.control.admit(task.host);
  if (adm.kind !== 'go') throw new Error(`not admitted: ${adm.kind}`);
  return { task, result: await e.runner.run(task, adm.permit, signal) };
}

describe('TaskRunner', () => {
  it('writes the record, enqueues the links and acks the task, stamped by the injected clock', async () => {
    const { site, engine: e } = await setUp({
      '/': html('<h1>Home</h1><a href="/a">a</a><a href="/b">b</a><a href="/a">again</a>'),
    });
    const { result, task } = await runOne(e);
    expect(result).toBe('ok');
    expect(e.control.inflight()).toBe(0); // the permit was released
    const [record] = readJsonl(e.results);
    expect(record).toMatchObject({
      url: `${site.origin}/`,
      taskId: task.id,
      status: 200,
      fields: { title: 'Home' },
      fetchedAt: new Date(e.clock.now()).toISOString(),
    });
    const stats = await e.frontier.stats();
    expect(stats).toMatchObject({ pending: 2, leased: 0, done: 1 });
    const links = await e.frontier.lease({ max: 10, leaseMs: 1000, owner: 't' });
    expect(links.map((t: Task) => [t.url, t.depth]).sort()).toEqual([
      [`${site.origin}/a`, 1],
      [`${site.origin}/b`, 1],
    ]);
  });

  it("retries a 503 at the server's Retry-After by the fake clock, charging an attempt", async () => {
    const { engine: e } = await setUp({
      '/': (_req, res) => res.writeHead(503, { 'retry-after': '120' }).end(),
    });
    const start = e.clock.now();
    expect((await runOne(e)).result).toBe('retry');
    expect(await e.frontier.nextReadyAt()).toBe(start + 120_000);
    e.clock.advance(119_999);
    expect(await e.frontier.lease({ max: 1, leaseMs: 1000, owner: 't' })).toEqual([]);
    e.clock.advance(1);
    const [again] = await e.frontier.lease({ max: 1, leaseMs: 1000, owner: 't' });
    expect(again?.attempts).toBe(1);
  });

  it('retries a 500 after the policy backoff, then dead-letters at maxAttempts; no record written', async () => {
    const { site, engine: e } = await setUp(
      { '/': (_req, res) => res.writeHead(500).end() },
      { maxAttempts: 2 },
    );
    const start = e.clock.now();
    expect((await runOne(e)).result).toBe('retry');
    const due = (await e.frontier.nextReadyAt())!;
    expect(due - start).toBe(e.retry.delayMs(1, undefined));
    expect(due - start).toBeGreaterThan(0);
    e.clock.advance(due - start);
    expect((await runOne(e)).result).toBe('dead');
    const [dead] = await e.frontier.listDead();
    expect(dead).toMatchObject({ url: `${site.origin}/`, reason: 'http_500', attempts: 2 });
    expect(readJsonl(e.results)).toEqual([]);
    expect(site.hits).toEqual(['/', '/']);
  });

  it('gives an aborted task back uncharged, due at once', async () => {
    let answer: (() => void) | undefined;
    const { engine: e } = await setUp({
      '/': (_req, res) => {
        answer = () => res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>late</h1>');
      },
    });
    const abort = new AbortController();
    const running = runOne(e, abort.signal);
    await waitFor(() => answer !== undefined, { what: 'the request to reach the server', every: 'turn' });
    abort.abort();
    expect((await running).result).toBe('deferred');
    answer?.();
    const [back] = await e.frontier.lease({ max: 1, leaseMs: 1000, owner: 't' });
    expect(back?.attempts).toBe(0);
    expect(e.control.inflight()).toBe(0);
  });
});
