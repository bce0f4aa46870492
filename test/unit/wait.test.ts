import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { pause, waitFor } from '../helpers/wait.js';

// vitest's fake timers fake setTimeout, setImmediate and performance.now together: time and
// turns move only when the test advances them.
beforeEach(() => {
  vi.useFakeTimers({
    toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'],
  });
});
afterEach(() => {
  vi.useRealTimers();
});

/** Resolves `p`'s outcome without letting an unhandled rejection escape while time is advanced. */
function settled<T>(p: Promise<T>): () => { value?: T; error?: Error } | undefined {
  let out: { value?: T; error?: Error } | undefined;
  p.then(
    (value) => {
      out = { value };
    },
    (error: Error) => {
      out = { error };
    },
  );
  return () => out;
}

describe('waitFor', () => {
  it('returns the first truthy value of a sync condition without waiting when it already holds', async () => {
    await expect(waitFor(() => 'ready', 'ready')).resolves.toBe('ready');
  });

  it('checks every 20 ms by default, and returns the value once it is truthy', async () => {
    let checks = 0;
    let value: number | null = null;
    const out = settled(
      waitFor(
        () => {
          checks++;
          return value;
        },
        { what: 'a value' },
      ),
    );
    await vi.advanceTimersByTimeAsync(100);
    expect(checks).toBe(6); // at 0, 20, 40, 60, 80, 100 ms
    expect(out()).toBeUndefined();
    value = 7;
    await vi.advanceTimersByTimeAsync(20);
    expect(out()).toEqual({ value: 7 });
  });

  it('awaits an async condition and checks it at the interval given', async () => {
    let n = 0;
    const out = settled(waitFor(async () => ++n >= 3 && `check ${n}`, { what: 'three checks', every: 50 }));
    await vi.advanceTimersByTimeAsync(99);
    expect(out()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(out()).toEqual({ value: 'check 3' });
  });

  it("with every: 'turn', checks once per event-loop turn", async () => {
    vi.useRealTimers();
    let turn = 0;
    const ticker = () => {
      turn++;
      if (turn < 100) setImmediate(ticker);
    };
    setImmediate(ticker);
    const seen: number[] = [];
    await waitFor(
      () => {
        seen.push(turn);
        return seen.length === 10;
      },
      { what: 'ten checks', every: 'turn' },
    );
    expect(seen.slice(1).map((t, i) => t - seen[i]!)).toEqual(Array(9).fill(1));
  });

  it('throws, naming what it waited for, once the deadline has passed and not before', async () => {
    const out = settled(waitFor(() => false, { what: 'the daemon to start', deadlineMs: 1000 }));
    await vi.advanceTimersByTimeAsync(980);
    expect(out()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(40);
    expect(out()?.error?.message).toBe('timed out after 1000 ms waiting for the daemon to start');
  });

  it('takes a throw as "not yet", and names the last error when the deadline passes', async () => {
    let n = 0;
    const out = settled(
      waitFor(
        async () => {
          n++;
          throw new Error(`ECONNREFUSED ${n}`);
        },
        { what: 'the port', deadlineMs: 100 },
      ),
    );
    await vi.advanceTimersByTimeAsync(120);
    const error = out()?.error;
    expect(error?.message).toBe(
      'timed out after 100 ms waiting for the port (last error: Error: ECONNREFUSED 6)',
    );
    expect((error?.cause as Error | undefined)?.message).toBe('ECONNREFUSED 6');
  });

  it('returns once a condition that threw holds', async () => {
    let listening = false;
    const out = settled(
      waitFor(
        () => {
          if (!listening) throw new Error('ECONNREFUSED');
          return 'answered';
        },
        { what: 'an answer' },
      ),
    );
    await vi.advanceTimersByTimeAsync(40);
    listening = true;
    await vi.advanceTimersByTimeAsync(20);
    expect(out()).toEqual({ value: 'answered' });
  });

  it('waits 20 s by default', async () => {
    const out = settled(waitFor(() => 0, 'nothing'));
    await vi.advanceTimersByTimeAsync(19_990);
    expect(out()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(20);
    expect(out()?.error?.message).toBe('timed out after 20000 ms waiting for nothing');
  });
});

describe('pause', () => {
  it('lets the time given pass', async () => {
    const out = settled(pause(500, 'nothing may happen meanwhile'));
    await vi.advanceTimersByTimeAsync(499);
    expect(out()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(out()).toEqual({ value: undefined });
  });

  it('says why', () => {
    expect(() => pause(500, ' ')).toThrow('pause: say why time must pass');
  });
});
