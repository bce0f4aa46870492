import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, Client, type Dispatcher, Pool, request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { lightDispatcherFactory, poolQueueKey, SmallQueue } from '../../src/adapters/fetch/light-pool.js';
import { waitFor } from '../helpers/wait.js';

describe('SmallQueue', () => {
  it('is a FIFO that answers null when empty, as undici FixedQueue does', () => {
    const q = new SmallQueue<number>();
    expect(q.isEmpty()).toBe(true);
    expect(q.shift()).toBeNull();
    for (let i = 0; i < 5; i++) q.push(i);
    expect(q.shift()).toBe(0);
    q.push(5);
    expect([q.shift(), q.shift(), q.shift(), q.shift(), q.shift()]).toEqual([1, 2, 3, 4, 5]);
    expect(q.isEmpty()).toBe(true);
    expect(q.shift()).toBeNull();
  });

  it('keeps order across its compaction of a long run that never drains', () => {
    const q = new SmallQueue<number>();
    const out: number[] = [];
    // Always one more pushed than shifted: the head passes 1,024 with items still queued.
    for (let i = 0; i < 5000; i++) {
      q.push(2 * i);
      q.push(2 * i + 1);
      out.push(q.shift() as number);
    }
    expect(q.size).toBe(5000);
    while (!q.isEmpty()) out.push(q.shift() as number);
    expect(out).toEqual(Array.from({ length: 10_000 }, (_, i) => i));
  });
});

describe('lightDispatcherFactory', () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  it("swaps the Pool's preallocated queue for a SmallQueue (fails if undici moves the field)", () => {
    const pool = lightDispatcherFactory('http://127.0.0.1:1', { connections: 4 });
    closers.push(() => pool.destroy());
    expect(pool).toBeInstanceOf(Pool);
    // undici's own Pool, for comparison: its queue is there, and is not ours.
    const plain = new Pool('http://127.0.0.1:1', { connections: 4 });
    closers.push(() => plain.destroy());
    const plainKey = poolQueueKey(plain);
    expect(plainKey).toBeDefined();
    expect((plain as unknown as Record<symbol, unknown>)[plainKey as symbol]).not.toBeInstanceOf(SmallQueue);
    const key = poolQueueKey(pool);
    expect((pool as unknown as Record<symbol, unknown>)[key as symbol]).toBeInstanceOf(SmallQueue);
    // One connection: undici's factory gives a Client, and so does this one.
    const client = lightDispatcherFactory('http://127.0.0.1:1', { connections: 1 });
    closers.push(() => client.destroy());
    expect(client).toBeInstanceOf(Client);
  });

  it('queues requests beyond the connections in order, and fails them when the agent is destroyed', async () => {
    let inFlight = 0;
    let maxInFlight = 0;
    const held: http.ServerResponse[] = [];
    const server = http.createServer((req, res) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      res.on('close', () => inFlight--);
      if (req.url?.startsWith('/hold')) held.push(res);
      else setTimeout(() => res.end(req.url), 20);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    closers.push(() => new Promise((r) => server.close(r)));
    closers.push(async () => server.closeAllConnections());
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const pools: Dispatcher[] = [];
    const agent = new Agent({
      connections: 2,
      pipelining: 1,
      factory: (o, opts) => {
        const d = lightDispatcherFactory(o, opts);
        pools.push(d);
        return d;
      },
    });

    // Six requests on two connections: four wait in the pool's queue, and all come back in order.
    const bodies = await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const res = await request(`${origin}/p/${i}`, { dispatcher: agent });
        return res.body.text();
      }),
    );
    expect(bodies).toEqual(Array.from({ length: 6 }, (_, i) => `/p/${i}`));
    expect(maxInFlight).toBe(2);
    expect(pools).toHaveLength(1);
    const pool = pools[0] as unknown as Record<symbol, SmallQueue<unknown>>;
    const queue = pool[poolQueueKey(pool) as symbol] as SmallQueue<unknown>;
    expect(queue).toBeInstanceOf(SmallQueue);

    // Two requests the server holds, two waiting behind them: destroy fails all four.
    const pending = Array.from({ length: 4 }, (_, i) =>
      request(`${origin}/hold/${i}`, { dispatcher: agent }).then(
        () => 'answered',
        (err: Error) => err.name,
      ),
    );
    await waitFor(() => held.length === 2 && queue.size === 2, 'two requests held and two queued');
    await agent.destroy();
    const outcomes = await Promise.all(pending);
    expect(outcomes.every((o) => o !== 'answered')).toBe(true);
    expect(queue.isEmpty()).toBe(true);
  });
});
