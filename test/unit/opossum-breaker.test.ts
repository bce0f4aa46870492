import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OpossumHostBreakers } from '../../src/adapters/breaker/opossum-breaker.js';
import type { BreakerTransition } from '../../src/ports/breaker.js';

// opossum reads Date.now and runs its own timers (reset, bucket rotation): vitest's fake
// timers fake both, so time moves only when the test says. setImmediate stays real: tick()
// lets opossum's event handlers run.
const tick = () => new Promise<void>((resolve) => setImmediate(resolve));
const sleep = (ms: number) => vi.advanceTimersByTimeAsync(ms);

describe('OpossumHostBreakers', () => {
  let registry: OpossumHostBreakers | undefined;
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  });
  afterEach(() => {
    registry?.close();
    vi.useRealTimers();
  });

  it('opens at the threshold, half-opens after resetTimeout, closes on a probe success', async () => {
    registry = new OpossumHostBreakers({ volumeThreshold: 4, resetTimeoutMs: 150 });
    const seen: string[] = [];
    registry.onTransition((t: BreakerTransition) => seen.push(`${t.host}:${t.from}->${t.to}`));
    const a = registry.get('a');
    for (let i = 0; i < 3; i++) a.onFailure();
    await tick();
    expect(a.state).toBe('closed');
    a.onFailure();
    await tick();
    expect(a.state).toBe('open');
    expect(a.canPass()).toBe(false);
    expect(registry.get('b').canPass()).toBe(true);
    await sleep(200);
    expect(a.state).toBe('halfOpen');
    expect(a.canPass()).toBe(true);
    expect(a.canPass()).toBe(false);
    a.onSuccess();
    await tick();
    expect(a.state).toBe('closed');
    expect(seen).toEqual(['a:closed->open', 'a:open->halfOpen', 'a:halfOpen->closed']);
  });

  it('reopens on a probe failure', async () => {
    registry = new OpossumHostBreakers({ volumeThreshold: 1, resetTimeoutMs: 100 });
    const a = registry.get('a');
    a.onFailure();
    await tick();
    await sleep(150);
    expect(a.canPass()).toBe(true);
    a.onFailure();
    await tick();
    expect(a.state).toBe('open');
  });

  it('trips on consecutive failures; the open time doubles per trip and starts short after a success', async () => {
    registry = new OpossumHostBreakers({
      volumeThreshold: 1000,
      consecutiveFailures: 5,
      resetTimeoutMs: 100,
      maxResetTimeoutMs: 1000,
    });
    const a = registry.get('a');
    for (let i = 0; i < 4; i++) a.onFailure();
    await tick();
    expect(a.state).toBe('closed');
    a.onFailure();
    await tick();
    expect(a.state).toBe('open');
    expect(a.retryInMs).toBeGreaterThan(50);
    expect(a.retryInMs).toBeLessThanOrEqual(100);
    await sleep(130);
    expect(a.canPass()).toBe(true);
    a.onFailure(); // the probe failed: open for 200 ms, and opossum's own timer says so too
    await tick();
    expect(a.state).toBe('open');
    expect(a.retryInMs).toBeGreaterThan(150);
    await sleep(a.retryInMs + 30);
    expect(a.canPass()).toBe(true);
    a.onSuccess();
    await tick();
    expect(a.state).toBe('closed');
    for (let i = 0; i < 5; i++) a.onFailure();
    await tick();
    expect(a.state).toBe('open');
    expect(a.retryInMs).toBeLessThanOrEqual(100);
  });

  it('counts an open time from when the failure happened, as the policy breaker does', async () => {
    registry = new OpossumHostBreakers({
      volumeThreshold: 1000,
      consecutiveFailures: 2,
      resetTimeoutMs: 400,
    });
    const a = registry.get('a');
    a.onFailure({ agoMs: 150 });
    a.onFailure({ agoMs: 150 });
    await tick();
    expect(a.state).toBe('open');
    expect(a.retryInMs).toBeLessThanOrEqual(250);
    // opossum's own reset timer was armed for what is left, not for the whole 400 ms.
    await sleep(260);
    expect(a.canPass()).toBe(true);
  });

  it('old buckets roll out of the window', async () => {
    registry = new OpossumHostBreakers({
      volumeThreshold: 4,
      rollingCountTimeoutMs: 200,
      rollingCountBuckets: 4,
    });
    const a = registry.get('a');
    for (let i = 0; i < 3; i++) a.onFailure();
    await sleep(300);
    a.onFailure();
    await tick();
    expect(a.state).toBe('closed');
  });

  it('bounds the registry and shuts evicted breakers down', async () => {
    registry = new OpossumHostBreakers({ maxHosts: 2, volumeThreshold: 1 });
    registry.get('open').onFailure();
    await tick();
    registry.get('x');
    registry.get('y');
    expect(registry.size).toBe(2);
    expect(registry.get('open').state).toBe('open');
  });
});
