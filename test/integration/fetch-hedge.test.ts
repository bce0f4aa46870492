import { afterEach, describe, expect, it } from 'vitest';
import { HedgePolicy } from '../../src/core/hedge.js';
import { closeAll, makeFetcher, startServer } from '../helpers/fetch.js';
import { waitFor } from '../helpers/wait.js';

afterEach(closeAll);

/**
 * Hedged requests through the real fetcher: a host that answered 20 pages promptly, then
 * leaves one request unanswered. The second request of the same URL answers, wins, and the
 * first is cancelled (the server sees its connection close). Headers timeouts are 10 s: a
 * fetch that waited for the first request would fail the test's own timeout, not pass.
 */
async function site() {
  let closedUnanswered = 0;
  const seen = new Map<string, number>();
  const server = await startServer((req, res) => {
    const n = (seen.get(req.url ?? '') ?? 0) + 1;
    seen.set(req.url ?? '', n);
    if (req.url?.startsWith('/once-hangs') && n === 1) {
      res.on('close', () => closedUnanswered++);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(`<p>${req.method} ${req.url} #${n}</p>`);
  });
  return { server, seen, closedUnanswered: () => closedUnanswered };
}

describe('UndiciFetcher: hedged requests', () => {
  it('sends a GET again once it waited past its host p95, takes the first answer and cancels the other', async () => {
    const { server, seen, closedUnanswered } = await site();
    const hedge = new HedgePolicy({ enabled: true, maxPercent: 100 });
    const results: string[] = [];
    const fetcher = makeFetcher({
      headersTimeoutMs: 10_000,
      totalTimeoutMs: 20_000,
      hedge,
      onHedge: (_host, result) => results.push(result),
    });
    for (let i = 0; i < 20; i++) await fetcher.fetch({ url: `${server.origin}/p/${i}` });
    expect(results).toEqual([]);
    const res = await fetcher.fetch({ url: `${server.origin}/once-hangs` });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toContain('#2');
    expect(seen.get('/once-hangs')).toBe(2);
    expect(results).toEqual(['won']);
    await waitFor(() => closedUnanswered() === 1, 'the unanswered first request to be cancelled');
  });

  it('never hedges a request with a body, nor one when the budget is spent', async () => {
    const { server, seen } = await site();
    const hedge = new HedgePolicy({ enabled: true, maxPercent: 1 });
    const results: string[] = [];
    const fetcher = makeFetcher({
      headersTimeoutMs: 300,
      totalTimeoutMs: 20_000,
      hedge,
      onHedge: (_host, result) => results.push(result),
    });
    for (let i = 0; i < 20; i++) await fetcher.fetch({ url: `${server.origin}/p/${i}` });
    // The budget starts with one hedge: a POST does not spend it.
    await expect(
      fetcher.fetch({ url: `${server.origin}/once-hangs-post`, method: 'POST', body: 'x' }),
    ).rejects.toThrow(/timeout/i);
    expect(seen.get('/once-hangs-post')).toBe(1);
    const first = await fetcher.fetch({ url: `${server.origin}/once-hangs-a` });
    expect(first.body.toString()).toContain('#2');
    // Spent: 1 % of the 22 requests since does not make a hedge.
    await expect(fetcher.fetch({ url: `${server.origin}/once-hangs-b` })).rejects.toThrow(/timeout/i);
    expect(seen.get('/once-hangs-b')).toBe(1);
    expect(results).toEqual(['won']);
  });
});
