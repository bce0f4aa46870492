import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import {
  ADAPTIVE_TIMEOUT_BOUNDS,
  type AdaptiveTimeoutOptions,
  adaptiveTimeoutDefaults,
  HostTimeouts,
} from '../../src/core/host-timeout.js';
import { UNLEARNED_RECHECK_MS, watchPhase } from '../../src/core/phase-watch.js';

const HOST = 'site.test';
/** headersTimeoutMs's default: the ceiling of a learned headers timeout. */
const CEILING = 15_000;

/**
 * A host simulated on the fake clock: `concurrency` requests in flight, each answered after
 * `latency(n)` ms (the n-th request sent; Infinity: never), each watched by watchPhase as the
 * fetcher watches one. A request that outlives its host's timeout is given up (expire()) and
 * its page sent again, as the retry policy does; the page counts as retried.
 */
function simulate(o: {
  timeouts: HostTimeouts;
  clock: FakeClock;
  pages: number;
  concurrency: number;
  latency: (n: number) => number;
}) {
  let sent = 0;
  let done = 0;
  let expiries = 0;
  const retried = new Set<number>();
  const queue: number[] = [];
  for (let p = 0; p < o.pages; p++) queue.push(p);
  const send = (): void => {
    const page = queue.shift();
    if (page === undefined) return;
    const latency = o.latency(sent++);
    const answer = () => {
      watch.done();
      done++;
      send();
    };
    const timer = Number.isFinite(latency) ? o.clock.setTimer(answer, latency) : undefined;
    const watch = watchPhase(o.timeouts, o.clock, HOST, 'headers', CEILING, () => {
      if (!watch.expire()) return;
      timer?.cancel();
      expiries++;
      retried.add(page);
      queue.unshift(page);
      send();
    });
  };
  for (let i = 0; i < o.concurrency; i++) send();
  // The fake clock only moves when told: in steps, until every page is answered.
  for (let guard = 0; done < o.pages && guard < 1_000_000; guard++) o.clock.advance(10);
  return { done, expiries, retried: retried.size, sent };
}

const setup = (options: AdaptiveTimeoutOptions = {}) => ({
  clock: new FakeClock(),
  timeouts: new HostTimeouts(options),
});

/** A few ms of noise, deterministic: what a steady host's answers look like. */
const jitter = (n: number, ms: number) => ((n * 7919) % 13) * (ms / 13);

describe('HostTimeouts', () => {
  it('holds a host with no samples, and one with fewer than minSamples, to the configured timeout', () => {
    const { timeouts } = setup();
    expect(timeouts.arm(HOST, 'headers', CEILING)).toEqual({ ms: CEILING, learned: false, level: 0 });
    for (let i = 0; i < adaptiveTimeoutDefaults.minSamples - 1; i++) timeouts.sample(HOST, 'headers', 50);
    expect(timeouts.arm(HOST, 'headers', CEILING).learned).toBe(false);
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBeUndefined();
    timeouts.sample(HOST, 'headers', 50);
    expect(timeouts.arm(HOST, 'headers', CEILING)).toEqual({ ms: 250, learned: true, level: 0 });
    // Another host, and another phase of this one, know nothing yet.
    expect(timeouts.arm('other.test', 'headers', CEILING).learned).toBe(false);
    expect(timeouts.arm(HOST, 'connect', 10_000).learned).toBe(false);
  });

  it('never goes below the floor: a 2 ms host is given 250 ms', () => {
    const { timeouts } = setup();
    for (let i = 0; i < 50; i++) timeouts.sample(HOST, 'headers', 2 + (i % 3));
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBe(250);
    const low = setup({ floorMs: 20 }).timeouts;
    for (let i = 0; i < 50; i++) low.sample(HOST, 'headers', 2);
    expect(low.timeoutOf(HOST, 'headers', CEILING)).toBe(20);
  });

  it('follows RFC 6298: SRTT + 4 RTTVAR for a noisy host, at least 2 x SRTT for a steady one', () => {
    const { timeouts } = setup();
    // Alternating 200 and 600 ms: SRTT near 400, RTTVAR near 200 (the mean deviation).
    for (let i = 0; i < 200; i++) timeouts.sample(HOST, 'headers', i % 2 ? 600 : 200);
    const e = timeouts.estimate(HOST, 'headers')!;
    expect(e.srtt).toBeGreaterThan(350);
    expect(e.srtt).toBeLessThan(450);
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBe(Math.ceil(e.srtt + 4 * e.rttvar));
    const steady = setup().timeouts;
    for (let i = 0; i < 200; i++) steady.sample(HOST, 'headers', 3000);
    expect(steady.estimate(HOST, 'headers')!.rttvar).toBeLessThan(1);
    expect(steady.timeoutOf(HOST, 'headers', CEILING)).toBe(6000);
  });

  it('never cuts short a host that answers every page in 3 s', () => {
    const { timeouts, clock } = setup();
    const r = simulate({
      timeouts,
      clock,
      pages: 2000,
      concurrency: 64,
      // 3 s, a few ms of noise, and one page in 50 taking 5 s (a slow query, a stall of ours).
      latency: (n) => (n % 50 === 49 ? 5000 : 3000 + jitter(n, 30)),
    });
    expect(r.done).toBe(2000);
    expect(r.expiries).toBe(0);
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBeGreaterThanOrEqual(6000);
  });

  it('follows a host that gets slower for good (50 ms, then 1.5 s): a few pages retried, none lost', () => {
    const { timeouts, clock } = setup();
    const r = simulate({
      timeouts,
      clock,
      pages: 2000,
      concurrency: 8,
      latency: (n) => (n < 500 ? 50 + jitter(n, 5) : 1500 + jitter(n, 20)),
    });
    expect(r.done).toBe(2000);
    // The 8 in flight when it slowed down expire at 250 ms, their retries at 500 ms, then 1 s;
    // at 2 s the first answers come and the estimate takes the new latency in.
    expect(r.expiries).toBeGreaterThan(0);
    expect(r.expiries).toBeLessThanOrEqual(3 * 8);
    expect(r.retried).toBeLessThanOrEqual(8);
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBeGreaterThanOrEqual(3000);
  });

  it("waits on a request queued behind the host's earlier ones: an overloaded host is slow, not hung", () => {
    const { timeouts, clock } = setup();
    // A host with 4 workers of 100 ms each, first in first out: past 4 in flight the queue
    // grows, and at 32 in flight a request waits 800 ms (slow start overshooting the knee).
    let free = 4;
    const queue: (() => void)[] = [];
    const serve = (answer: () => void) => {
      free--;
      clock.setTimer(() => {
        free++;
        answer();
        const next = queue.shift();
        if (next) serve(next);
      }, 100);
    };
    const submit = (answer: () => void) => (free > 0 ? serve(answer) : queue.push(answer));
    let done = 0;
    let expiries = 0;
    const request = (): void => {
      const watch = watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => {
        if (watch.expire()) expiries++;
      });
      submit(() => {
        watch.done();
        done++;
      });
    };
    // Learned at 4 in flight (100 ms: timeout 250 ms), then 32 at once, twice.
    for (let i = 0; i < 40; i++) {
      for (let j = 0; j < 4; j++) request();
      clock.advance(100);
    }
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBe(250);
    for (let round = 0; round < 2; round++) {
      for (let j = 0; j < 32; j++) request();
      clock.advance(1000);
    }
    expect(done).toBe(160 + 64);
    expect(expiries).toBe(0);
  });

  it('gives a request up at its timeout while its host answers promptly, and waits on while the answers are as slow', () => {
    const { timeouts, clock } = setup();
    const answer = (ms: number) => {
      const w = watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => {});
      clock.advance(ms);
      w.done();
    };
    for (let i = 0; i < 10; i++) answer(50);
    let due = 0;
    watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => due++);
    clock.advance(250);
    expect(due).toBe(1);
    // The host's last answer took 200 ms (the timeout is still 250 ms): a request that waited
    // 250 ms is as slow as it was, and waits on until it waited twice as long.
    answer(200);
    expect(timeouts.timeoutOf(HOST, 'headers', CEILING)).toBe(250);
    due = 0;
    watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => due++);
    clock.advance(399);
    expect(due).toBe(0);
    clock.advance(2);
    expect(due).toBe(1);
  });

  it('backs off on consecutive expiries (doubling, to the ceiling) and is back on the estimate at the next answer', () => {
    const { timeouts } = setup();
    for (let i = 0; i < 10; i++) timeouts.sample(HOST, 'headers', 50);
    const seen: number[] = [];
    for (let i = 0; i < 8; i++) {
      const armed = timeouts.arm(HOST, 'headers', 5000);
      seen.push(armed.ms);
      timeouts.expired(HOST, 'headers', armed);
    }
    expect(seen).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 5000]);
    // At the ceiling it is the configured timeout again: nothing more to back off.
    expect(timeouts.arm(HOST, 'headers', 5000).learned).toBe(false);
    timeouts.sample(HOST, 'headers', 60);
    expect(timeouts.arm(HOST, 'headers', 5000)).toEqual({ ms: 250, learned: true, level: 0 });
  });

  it('backs off once for a burst of requests that expire together, not once per request', () => {
    const { timeouts } = setup();
    for (let i = 0; i < 10; i++) timeouts.sample(HOST, 'headers', 50);
    const burst = Array.from({ length: 8 }, () => timeouts.arm(HOST, 'headers', CEILING));
    for (const armed of burst) timeouts.expired(HOST, 'headers', armed);
    expect(timeouts.arm(HOST, 'headers', CEILING).ms).toBe(500);
    // A configured (not learned) timeout that expired says nothing of the estimate.
    timeouts.expired(HOST, 'headers', { ms: CEILING, learned: false, level: 1 });
    expect(timeouts.arm(HOST, 'headers', CEILING).ms).toBe(500);
  });

  it('gives up a host that stopped answering at its learned timeout, then at doubling ones', () => {
    const { timeouts, clock } = setup();
    for (let i = 0; i < 10; i++) timeouts.sample(HOST, 'headers', 50);
    const expiredAt: number[] = [];
    const attempt = (): void => {
      const watch = watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => {
        if (watch.expire()) {
          expiredAt.push(clock.monotonic());
          attempt();
        }
      });
    };
    attempt();
    clock.advance(10_000);
    expect(expiredAt).toEqual([250, 750, 1750, 3750, 7750]);
  });

  it('does not give a request up when its answer came in the turn its timer fired', () => {
    const { timeouts, clock } = setup();
    for (let i = 0; i < 10; i++) timeouts.sample(HOST, 'headers', 50);
    let due = 0;
    const watch = watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => due++);
    clock.advance(250);
    expect(due).toBe(1);
    watch.done();
    expect(watch.expire()).toBe(false);
    expect(timeouts.arm(HOST, 'headers', CEILING).level).toBe(0);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('holds a request sent before its host was learned to the learned timeout once it is', () => {
    const { timeouts, clock } = setup();
    let due = 0;
    // The first request to the host: nothing is known, the configured timeouts apply.
    const first = watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => due++);
    expect(first.armed.learned).toBe(false);
    for (let i = 0; i < 5; i++) {
      const w = watchPhase(timeouts, clock, HOST, 'headers', CEILING, () => {});
      clock.advance(50);
      w.done();
    }
    expect(due).toBe(0);
    // It looks again within UNLEARNED_RECHECK_MS, finds the host learned (250 ms) and long past it.
    clock.advance(UNLEARNED_RECHECK_MS);
    expect(due).toBe(1);
    expect(first.armed).toEqual({ ms: 250, learned: true, level: 0 });
    expect(first.expire()).toBe(true);
    // Off, nothing is watched at all.
    const off = setup({ enabled: false });
    watchPhase(off.timeouts, off.clock, HOST, 'headers', CEILING, () => {});
    expect(off.clock.pendingTimers()).toBe(0);
  });

  it('times a body by its silences: chunks keep it alive, a silence past the timeout ends it', () => {
    const { timeouts, clock } = setup();
    for (let i = 0; i < 10; i++) {
      timeouts.sample(HOST, 'headers', 50);
      timeouts.sample(HOST, 'body', 5);
    }
    // The body's own estimate is at the floor; a body may go as silent as the headers may take.
    expect(timeouts.arm(HOST, 'body', 15_000).ms).toBe(250);
    let due = 0;
    const watch = watchPhase(timeouts, clock, HOST, 'body', 15_000, () => due++);
    for (let i = 0; i < 20; i++) {
      clock.advance(200);
      watch.progress();
    }
    expect(due).toBe(0);
    clock.advance(250);
    expect(due).toBe(1);
    expect(watch.expire()).toBe(true);
    // A body that ends in time is sampled by its longest silence, not its length.
    const ok = watchPhase(timeouts, clock, HOST, 'body', 15_000, () => {});
    clock.advance(100);
    ok.progress();
    clock.advance(30);
    ok.done();
    const e = timeouts.estimate(HOST, 'body')!;
    expect(e.samples).toBe(11);
    expect(e.level).toBe(0);
  });

  it('holds a body to the configured timeout until the headers are learned too', () => {
    const { timeouts } = setup();
    for (let i = 0; i < 10; i++) timeouts.sample(HOST, 'body', 5);
    expect(timeouts.arm(HOST, 'body', 15_000).learned).toBe(false);
    for (let i = 0; i < 10; i++) timeouts.sample(HOST, 'headers', 400);
    expect(timeouts.arm(HOST, 'body', 15_000)).toMatchObject({ learned: true, ms: 800 });
  });

  it('learns nothing when off: every request waits the configured timeout', () => {
    const { timeouts } = setup({ enabled: false });
    for (let i = 0; i < 50; i++) timeouts.sample(HOST, 'headers', 50);
    expect(timeouts.arm(HOST, 'headers', CEILING)).toEqual({ ms: CEILING, learned: false, level: 0 });
    expect(timeouts.size).toBe(0);
  });

  it('remembers at most maxHosts hosts', () => {
    const { timeouts } = setup({ maxHosts: 10 });
    for (let i = 0; i < 100; i++) timeouts.sample(`h${i}.test`, 'headers', 50);
    expect(timeouts.size).toBe(10);
  });

  it('refuses options out of their bounds, naming them', () => {
    for (const [option, bound] of Object.entries(ADAPTIVE_TIMEOUT_BOUNDS)) {
      const below = (bound.min ?? 0) - 1;
      expect(() => new HostTimeouts({ [option]: below }), option).toThrow(InvalidArgumentError);
      expect(() => new HostTimeouts({ [option]: below }), option).toThrow(`\`${option}\``);
    }
    expect(() => new HostTimeouts({ factor: 0.5 })).toThrow(/`factor`/);
    expect(() => new HostTimeouts({ floorMs: 2.5 })).toThrow(/`floorMs`/);
  });
});
