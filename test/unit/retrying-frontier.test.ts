import { describe, expect, it } from 'vitest';
import { MemoryFrontier } from '../../src/adapters/frontier/memory/memory-frontier.js';
import { RedisUnavailableError } from '../../src/adapters/redis/redis-client.js';
import { FakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { RetryingFrontier } from '../../src/engine/recovery/retrying-frontier.js';
import type { Frontier } from '../../src/ports/frontier.js';

/** A real MemoryFrontier whose enqueue fails with `err` the first `failures` times. */
function flaky(inner: Frontier, failures: number, err: Error): Frontier & { calls: number } {
  const f = Object.create(inner) as Frontier & { calls: number };
  f.calls = 0;
  f.enqueue = (requests) => {
    f.calls++;
    return f.calls <= failures ? Promise.reject(err) : inner.enqueue(requests);
  };
  return f;
}

/** Lets pending promise callbacks run, then moves the fake clock. */
async function advance(clock: FakeClock, ms: number): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
  clock.advance(ms);
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

const req = [{ url: 'http://a.example/1', jobId: 'j' }];

describe('RetryingFrontier (on an injected clock)', () => {
  it('waits out a retryable outage with doubling delays, then succeeds', async () => {
    const clock = new FakeClock();
    const memory = new MemoryFrontier({ clock });
    await memory.open();
    const inner = flaky(memory, 3, new RedisUnavailableError('down'));
    const f = new RetryingFrontier(inner, { clock, maxWaitMs: 10_000, initialDelayMs: 100 });
    let settled = false;
    const p = f.enqueue(req).finally(() => {
      settled = true;
    });
    await advance(clock, 99);
    expect(inner.calls).toBe(1);
    await advance(clock, 1); // 100 ms: second try
    expect(inner.calls).toBe(2);
    await advance(clock, 200); // 300 ms: third
    await advance(clock, 400); // 700 ms: fourth succeeds
    expect(inner.calls).toBe(4);
    await expect(p).resolves.toMatchObject({ added: 1 });
    expect(settled).toBe(true);
  });

  it('rethrows at once what retrying cannot fix, and gives up past maxWaitMs', async () => {
    const clock = new FakeClock();
    const bad = flaky(new MemoryFrontier({ clock }), 1, new InvalidArgumentError('bad'));
    await expect(new RetryingFrontier(bad, { clock, maxWaitMs: 10_000 }).enqueue(req)).rejects.toThrow('bad');
    expect(bad.calls).toBe(1);

    const down = flaky(new MemoryFrontier({ clock }), 100, new RedisUnavailableError('down'));
    const f = new RetryingFrontier(down, { clock, maxWaitMs: 250, initialDelayMs: 100 });
    const p = f.enqueue(req);
    const seen = p.catch((e: unknown) => e);
    await advance(clock, 100);
    await advance(clock, 200);
    expect(await seen).toBeInstanceOf(RedisUnavailableError);
    expect(down.calls).toBe(2); // a third try would start after the 250 ms budget
  });

  it('giveUp() ends a wait in progress', async () => {
    const clock = new FakeClock();
    const down = flaky(new MemoryFrontier({ clock }), 100, new RedisUnavailableError('down'));
    const f = new RetryingFrontier(down, { clock, maxWaitMs: 60_000 });
    const seen = f.enqueue(req).catch((e: unknown) => e);
    await advance(clock, 0);
    f.giveUp();
    expect(await seen).toBeInstanceOf(RedisUnavailableError);
    expect(down.calls).toBe(2);
  });
});
