import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { InvalidArgumentError } from '../../src/core/errors.js';
import { AimdLimit, type AimdOptions, aimdDefaults, percentile } from '../../src/core/limit/aimd.js';
import { ConcurrencyLimiter } from '../../src/core/limiter.js';
import { runKneeSim } from '../helpers/knee-sim.js';

const absolute = (latencyMs: number): AimdOptions['target'] => ({ kind: 'absolute', latencyMs });

/** Feeds one full window (minWindowSamples samples, windowMs apart in total). */
function window(limit: AimdLimit, clock: FakeClock, rttMs: number, inflight: number, extra: object = {}) {
  for (let i = 0; i < 4; i++) {
    clock.advance(34);
    limit.onSample({ rttMs, inflight, dropped: false, ...extra });
  }
}

/** Windows in which every sample is a drop (a connection reset): each cuts once. */
function outage(limit: AimdLimit, clock: FakeClock, windows: number) {
  for (let w = 0; w < windows; w++) {
    for (let i = 0; i < 4; i++) {
      clock.advance(34);
      limit.onSample({ rttMs: 50, inflight: limit.limit, dropped: true });
    }
  }
}

/**
 * Slow start to 40, held and cut at the knee (latency 1.5 × target twice: 40 → 26), then +1 per
 * window under target: 26, 27 shown good, the limit at 28.
 */
function atKnee() {
  const m = make({ slowStart: true });
  for (const [rtt, inflight] of [
    [50, 10],
    [50, 20],
    [150, 40],
    [150, 40],
    [50, 26],
    [50, 27],
  ] as const)
    window(m.limit, m.clock, rtt, inflight);
  return m;
}

/** The limits these cases were written for (the product defaults are 8 and 256). */
const LIMITS = { initialLimit: 10, maxLimit: 200 } as const;

function make(options: AimdOptions = {}) {
  const clock = new FakeClock();
  const limit = new AimdLimit(
    {
      ...LIMITS,
      windowMs: 100,
      slowStartWindowMs: 100,
      minWindowSamples: 4,
      slowStart: false,
      target: absolute(100),
      tolerance: 0,
      // Plain additive increase, so each step is 1; proportional growth has its own test.
      maxGrowthRatio: 1,
      ...options,
    },
    clock,
  );
  return { clock, limit };
}

/** A relative-target limit on 100 ms windows of 4 samples, no slow start, default tolerance. */
function makeRelative(
  target: Omit<Extract<AimdOptions['target'], { kind: 'relative' }>, 'kind'>,
  options: AimdOptions = {},
) {
  const clock = new FakeClock();
  const limit = new AimdLimit(
    {
      ...LIMITS,
      windowMs: 100,
      minWindowSamples: 4,
      slowStart: false,
      target: { kind: 'relative', ...target },
      ...options,
    },
    clock,
  );
  return { clock, limit };
}

describe('AimdLimit', () => {
  it('slow start: doubles per window under target until the first cut, which goes to the knee', () => {
    const { clock, limit } = make({ slowStart: true });
    window(limit, clock, 50, 10);
    expect(limit.limit).toBe(20);
    window(limit, clock, 50, 20);
    expect(limit.limit).toBe(40);
    window(limit, clock, 150, 40); // under twice the target: held, looked at again
    expect(limit.limit).toBe(40);
    window(limit, clock, 150, 40);
    // Latency 1.5 × target twice: the knee is near 40 / 1.5; then additive increase.
    expect(limit.limit).toBe(26);
    window(limit, clock, 50, 26);
    expect(limit.limit).toBe(27);
    window(limit, clock, 105, 27);
    expect(limit.limit).toBe(24); // just over target: backoffRatio, and additive windows from now on
  });

  it('resume() after an outage: doubles back to the last good limit, then grows additively', () => {
    const { clock, limit } = atKnee();
    expect(limit.limit).toBe(28); // served within target at 27 in flight, now trying 28
    outage(limit, clock, 4); // the drops of an outage: one cut per window, 28 → 25 → 22 → 19 → 17
    expect(limit.limit).toBe(17);
    limit.resume(); // the breaker closed
    window(limit, clock, 50, 17);
    expect(limit.limit).toBe(27); // ×2 but no further than the last good limit (not 34)...
    window(limit, clock, 50, 27);
    expect(limit.limit).toBe(28); // ...then additive again
  });

  it('a window without a drop ends an outage the breaker did not see', () => {
    const { clock, limit } = atKnee();
    // A flaky host: one request in four fails. Every window has a drop: one cut per window,
    // and the successes between the drops do not start the regrowth.
    for (let w = 0; w < 3; w++) {
      for (const dropped of [false, false, false, true]) {
        clock.advance(34);
        limit.onSample({ rttMs: 50, inflight: limit.limit, dropped });
      }
    }
    expect(limit.limit).toBe(19); // 28 → 25 → 22 → 19
    // The first window without a drop (no resume(): no breaker opened) doubles back to 27.
    window(limit, clock, 50, 19);
    expect(limit.limit).toBe(27);
    window(limit, clock, 50, 27);
    expect(limit.limit).toBe(28);
  });

  it('after an outage a drop cuts by backoffRatio and a latency cut ends the regrowth', () => {
    const again = atKnee();
    outage(again.limit, again.clock, 4);
    again.limit.resume();
    outage(again.limit, again.clock, 1); // down again at once: ×0.9, not halved as in the first slow start
    expect(again.limit.limit).toBe(15);
    // A host that came back slower: over target, cut towards its new knee; the good limit
    // falls with the cut, so the next outage regrows to it, not to the old 27.
    const slower = atKnee();
    outage(slower.limit, slower.clock, 4);
    slower.limit.resume();
    window(slower.limit, slower.clock, 200, 17);
    expect(slower.limit.limit).toBe(8); // twice the target: ends it at once, at most half
    window(slower.limit, slower.clock, 50, 8);
    expect(slower.limit.limit).toBe(9);
    outage(slower.limit, slower.clock, 1);
    expect(slower.limit.limit).toBe(8);
    slower.limit.resume();
    window(slower.limit, slower.clock, 50, 8);
    expect(slower.limit.limit).toBe(9); // +1: 8 was the last good limit, so no doubling to 16
  });

  it('without a good limit yet, a closed breaker restarts the first, unbounded slow start', () => {
    const { clock, limit } = make({ slowStart: true });
    limit.onSample({ rttMs: 0, inflight: 10, dropped: true }); // before any verdict
    expect(limit.limit).toBe(5);
    limit.resume();
    window(limit, clock, 50, 5); // closes the cut's window
    window(limit, clock, 50, 5);
    expect(limit.limit).toBe(10);
    window(limit, clock, 50, 10);
    expect(limit.limit).toBe(20);
    // (Successes alone do not: 'slow start ends on a drop too' grows 5 → 6.)
  });

  it('slowStart: false: a recovered host grows as in steady state', () => {
    const { clock, limit } = make({ initialLimit: 20 });
    window(limit, clock, 50, 20);
    expect(limit.limit).toBe(21);
    outage(limit, clock, 2);
    expect(limit.limit).toBe(16);
    limit.resume();
    window(limit, clock, 50, 16);
    expect(limit.limit).toBe(17);
  });

  it('slow start: a mild excess must show twice to end it; a clear one ends it at once', () => {
    const { clock, limit } = make({ slowStart: true });
    window(limit, clock, 105, 10); // 5% over: noise, or the knee? Hold and look again.
    expect(limit.limit).toBe(10);
    window(limit, clock, 50, 10); // it was noise: slow start goes on
    expect(limit.limit).toBe(20);
    window(limit, clock, 105, 20);
    expect(limit.limit).toBe(20);
    window(limit, clock, 105, 20); // twice in a row: the knee, slow start ends
    expect(limit.limit).toBe(18);
    window(limit, clock, 50, 18);
    expect(limit.limit).toBe(19); // additive from now on
    // Twice the target (a doubling that landed at twice the knee) ends it at once.
    const clear = make({ slowStart: true });
    window(clear.limit, clear.clock, 200, 10);
    expect(clear.limit.limit).toBe(5);
    // Anything under that is held once: a stall of the crawler's own process reads like it.
    const stall = make({ slowStart: true });
    window(stall.limit, stall.clock, 180, 10);
    expect(stall.limit.limit).toBe(10);
    window(stall.limit, stall.clock, 90, 10);
    expect(stall.limit.limit).toBe(20);
  });

  it('the slow-start exit never cuts below half (the last limit under target)', () => {
    const { clock, limit } = make({ slowStart: true });
    window(limit, clock, 50, 10);
    window(limit, clock, 1000, 20); // 10 × target
    expect(limit.limit).toBe(10);
  });

  it('slow start decides on shorter windows, then on windowMs', () => {
    const clock = new FakeClock();
    const limit = new AimdLimit(
      {
        ...LIMITS,
        windowMs: 1000,
        slowStartWindowMs: 250,
        minWindowSamples: 4,
        target: absolute(100),
        maxGrowthRatio: 1,
      },
      clock,
    );
    const samples = (rttMs: number, everyMs: number) => {
      for (let i = 0; i < 4; i++) {
        clock.advance(everyMs);
        limit.onSample({ rttMs, inflight: limit.limit, dropped: false });
      }
    };
    samples(50, 90); // 270 ms after the window's first sample: a slow-start window closed
    expect(limit.limit).toBe(20);
    samples(150, 90); // over target, under twice it: held once
    expect(limit.limit).toBe(20);
    samples(150, 90); // again: cut to the knee estimate (at most backoffRatio), slow start over
    expect(limit.limit).toBe(13);
    samples(50, 90);
    samples(50, 90); // 720 ms since the cut: no window closed yet
    expect(limit.limit).toBe(13);
    samples(50, 90); // 1080 ms
    expect(limit.limit).toBe(14);
  });

  it('slow start ends on a drop too', () => {
    const { clock, limit } = make({ slowStart: true });
    limit.onSample({ rttMs: 10, inflight: 10, dropped: true });
    expect(limit.limit).toBe(5);
    window(limit, clock, 50, 5); // closes the window of the cut: no growth in it
    expect(limit.limit).toBe(5);
    window(limit, clock, 50, 5);
    expect(limit.limit).toBe(6); // additive now, not 10
  });

  it('grows by `increase` per window while under target and the limit is used', () => {
    const { clock, limit } = make();
    window(limit, clock, 50, 10);
    expect(limit.limit).toBe(11);
    window(limit, clock, 50, 6);
    expect(limit.limit).toBe(12);
  });

  it('does not grow while less than half the limit is used', () => {
    const { clock, limit } = make();
    for (let i = 0; i < 5; i++) window(limit, clock, 50, 4);
    expect(limit.limit).toBe(10);
  });

  it('cuts multiplicatively when the window percentile is over target', () => {
    const { clock, limit } = make();
    const changes: [number, string][] = [];
    limit.onChange((l, reason) => changes.push([l, reason]));
    window(limit, clock, 105, 10);
    expect(limit.limit).toBe(9); // just over: at least backoffRatio
    window(limit, clock, 150, 9);
    expect(limit.limit).toBe(6); // 1.5 × target: towards the knee, 9 × 100/150
    window(limit, clock, 1000, 6);
    expect(limit.limit).toBe(3); // never more than half at once
    expect(changes).toEqual([
      [9, 'latency'],
      [6, 'latency'],
      [3, 'latency'],
    ]);
  });

  it('cuts at once on a drop, but only once per window', () => {
    const { clock, limit } = make({ initialLimit: 100 });
    limit.onSample({ rttMs: 0, inflight: 100, dropped: true });
    expect(limit.limit).toBe(90);
    for (let i = 0; i < 2; i++) limit.onSample({ rttMs: 0, inflight: 100, dropped: true });
    expect(limit.limit).toBe(90);
    // The window of the drop closes without growth, even with fast samples.
    clock.advance(100);
    limit.onSample({ rttMs: 1, inflight: 100, dropped: false });
    expect(limit.limit).toBe(90);
    // The next window may cut again.
    limit.onSample({ rttMs: 0, inflight: 90, dropped: true });
    expect(limit.limit).toBe(81);
  });

  it('respects minLimit and maxLimit', () => {
    const { clock, limit } = make({ initialLimit: 2, minLimit: 2, maxLimit: 3 });
    window(limit, clock, 150, 2);
    expect(limit.limit).toBe(2);
    for (let i = 0; i < 3; i++) window(limit, clock, 50, 3);
    expect(limit.limit).toBe(3);
  });

  it('leaves lagged samples out of the latency decision, not out of drops', () => {
    const { clock, limit } = make();
    // 150 ms measured, but 100 ms of it was our own event loop: lag > 0.5 × rtt, ignored.
    window(limit, clock, 150, 10, { lagMs: 100 });
    expect(limit.limit).toBe(10); // no usable samples: no latency verdict, the limit holds
    // Saturated (lag reported as Infinity): still no verdict, still no drift upwards.
    for (let i = 0; i < 5; i++) window(limit, clock, 5, 10, { lagMs: Number.POSITIVE_INFINITY });
    expect(limit.limit).toBe(10);
    // Small lag is subtracted: 120 − 30 = 90 ms is under the 100 ms target.
    window(limit, clock, 120, 10, { lagMs: 30 });
    expect(limit.limit).toBe(11);
    limit.onSample({ rttMs: 150, inflight: 11, dropped: true, lagMs: 1000 });
    expect(limit.limit).toBe(9);
  });

  it('subtracts a per-response queuedMs instead of lagMs; lagMs alone decides usability', () => {
    const { clock, limit } = make();
    // The loop waited 40 ms for this response: 130 − 40 = 90 ms, under the 100 ms target,
    // although the stale per-second lag mean (5 ms) would have left 125.
    window(limit, clock, 130, 10, { lagMs: 5, queuedMs: 40 });
    expect(limit.limit).toBe(11);
    // A queue estimate larger than half the round trip does not make the sample unusable: on
    // a fast server the crawler's own work is most of each round trip, and a verdict is still
    // due. 2 − 1.5 = 0.5 ms is under target.
    window(limit, clock, 2, 11, { lagMs: 0, queuedMs: 1.5 });
    expect(limit.limit).toBe(12);
    // The lag monitor still rules a sample out (saturated loop).
    window(limit, clock, 500, 12, { lagMs: Number.POSITIVE_INFINITY, queuedMs: 0 });
    expect(limit.limit).toBe(12);
  });

  it('ignores samples that started before the last cut', () => {
    const { clock, limit } = make();
    window(limit, clock, 105, 10);
    expect(limit.limit).toBe(9);
    window(limit, clock, 150, 10, { startedAt: 0 });
    expect(limit.limit).toBe(9); // all stale: no verdict, the limit holds
    window(limit, clock, 50, 9, { startedAt: 200 });
    expect(limit.limit).toBe(10);
  });

  it('relative target: probes the unloaded baseline, then cuts above ratio × baseline', () => {
    const { clock, limit } = makeRelative({ ratio: 1.5, minRttWindowMs: 1000 });
    // The first probe runs at the initial limit; samples from above it would not count.
    expect(limit.stats()).toMatchObject({ probing: true, limit: 10 });
    window(limit, clock, 999, 11);
    expect(limit.stats().probing).toBe(true);
    window(limit, clock, 20, 10);
    expect(limit.stats()).toMatchObject({ baselineMs: 20, probing: false, limit: 10 });
    window(limit, clock, 29, 10);
    expect(limit.limit).toBe(11);
    window(limit, clock, 32, 11); // over 30 × (1 + the default tolerance 0.05)
    expect(limit.limit).toBe(9);
  });

  it('relative target: in slow start the first probe is also the first window under target', () => {
    const { clock, limit } = makeRelative({ ratio: 1.5, minRttWindowMs: 60_000 }, { slowStart: true });
    window(limit, clock, 20, 10);
    expect(limit.stats()).toMatchObject({ baselineMs: 20, probing: false, limit: 20 });
    // Later probes pin probeLimit, and the limit comes back after them.
    clock.advance(60_000);
    window(limit, clock, 20, 20);
    expect(limit.stats()).toMatchObject({ probing: true, limit: 3 });
    window(limit, clock, 20, 3);
    expect(limit.stats()).toMatchObject({ probing: false, limit: 40 });
  });

  it('relative target: slow-start windows do not lower the baseline', () => {
    const { clock, limit } = makeRelative({ ratio: 1.5, minRttWindowMs: 60_000 }, { slowStart: true });
    window(limit, clock, 20, 10);
    // Bursty completions after each doubling: their queue estimate reads low.
    window(limit, clock, 12, 20);
    window(limit, clock, 12, 40);
    expect(limit.stats()).toMatchObject({ baselineMs: 20, limit: 80 });
  });

  it('slow start: a window needs minWindowSamples samples started after the last change', () => {
    const clock = new FakeClock();
    const limit = new AimdLimit(
      { ...LIMITS, windowMs: 1000, slowStartWindowMs: 100, minWindowSamples: 4, target: absolute(100) },
      clock,
    );
    const sample = (startedAt: number) => {
      clock.advance(50);
      limit.onSample({ rttMs: 50, inflight: limit.limit, dropped: false, startedAt });
    };
    for (let i = 0; i < 4; i++) sample(0);
    expect(limit.limit).toBe(20); // 4 samples, 200 ms: doubled at t = 200
    for (let i = 0; i < 3; i++) sample(150); // started under the old limit: not counted
    sample(210);
    expect(limit.limit).toBe(20);
    for (let i = 0; i < 3; i++) sample(210);
    expect(limit.limit).toBe(40); // four fresh samples
  });

  it('slow start: a window of samples all lagged closes after windowMs, with no verdict', () => {
    const { clock, limit } = makeRelative({ minRttWindowMs: 500 }, { slowStart: true, windowMs: 1000 });
    window(limit, clock, 20, 10);
    expect(limit.stats()).toMatchObject({ probing: false, limit: 20 });
    const lagged = () => {
      clock.advance(100);
      limit.onSample({ rttMs: 20, inflight: 20, dropped: false, lagMs: Number.POSITIVE_INFINITY });
    };
    for (let i = 0; i < 9; i++) lagged();
    expect(limit.stats().probing).toBe(false); // 900 ms: still the same window
    lagged();
    // Closed at 1000 ms: no verdict, so the limit held, and the due probe began.
    expect(limit.stats()).toMatchObject({ probing: true, limit: 3 });
  });

  it('relative target: a probe window closes on its samples alone, however short', () => {
    const { clock, limit } = makeRelative({ minRttWindowMs: 60_000 }, { windowMs: 1000 });
    for (let i = 0; i < 3; i++) {
      clock.advance(1);
      limit.onSample({ rttMs: 20, inflight: 3, dropped: false });
    }
    expect(limit.stats().probing).toBe(true);
    clock.advance(1);
    limit.onSample({ rttMs: 20, inflight: 3, dropped: false });
    // 4 samples in 4 ms of a 1000 ms window: the probe is over, the AIMD limit is back.
    expect(limit.stats()).toMatchObject({ probing: false, baselineMs: 20, limit: 10 });
    // An ordinary window still lasts windowMs.
    for (let i = 0; i < 8; i++) {
      clock.advance(1);
      limit.onSample({ rttMs: 20, inflight: 10, dropped: false });
    }
    expect(limit.limit).toBe(10);
    clock.advance(1000);
    limit.onSample({ rttMs: 20, inflight: 10, dropped: false });
    expect(limit.limit).toBe(12); // 20 ms against a 30 ms target: grows by maxGrowthRatio
  });

  it('after slow start, grows towards limit × target / latency, by at most maxGrowthRatio', () => {
    const { clock, limit } = make({ maxGrowthRatio: 1.25, initialLimit: 20 });
    window(limit, clock, 50, 20); // half the target: capped at ×1.25
    expect(limit.limit).toBe(25);
    window(limit, clock, 90, 25); // 100 / 90 × 25 = 27.7
    expect(limit.limit).toBe(27);
    window(limit, clock, 99, 27); // near the target: the additive step
    expect(limit.limit).toBe(28);
    window(limit, clock, 50, 10); // a limit nobody used does not grow
    expect(limit.limit).toBe(28);
  });

  it('relative target: at least baseline + minMarginMs on a fast host', () => {
    const { clock, limit } = makeRelative({}, { tolerance: 0 });
    window(limit, clock, 20, 3); // baseline 20 ms: 1.15 × 20 = 23, but 20 + 10 = 30 wins
    expect(limit.limit).toBe(10);
    window(limit, clock, 29, 10);
    expect(limit.limit).toBe(11);
    expect(limit.stats().targetMs).toBe(30);
    window(limit, clock, 31, 11);
    expect(limit.limit).toBe(9);
  });

  it('tolerance: a dead band above the target neither grows nor cuts', () => {
    const { clock, limit } = make({ tolerance: 0.05 });
    window(limit, clock, 104, 10);
    expect(limit.limit).toBe(10);
    window(limit, clock, 100, 10);
    expect(limit.limit).toBe(11);
    window(limit, clock, 106, 11);
    expect(limit.limit).toBe(9);
  });

  it('relative target: the baseline rises again when the server really became slower', () => {
    const { clock, limit } = makeRelative({ ratio: 1.5, minRttWindowMs: 1000 });
    window(limit, clock, 20, 3);
    // The server is now 3× slower for good: the limit is cut while the old baseline holds...
    window(limit, clock, 60, 10);
    expect(limit.limit).toBe(5); // 60 ms against a 30 ms target: halved
    for (let i = 0; i < 12 && !limit.stats().probing; i++) window(limit, clock, 60, limit.limit);
    expect(limit.stats().probing).toBe(true);
    // ...until the next probe re-measures it; samples from above the probe limit do not count.
    window(limit, clock, 999, 9);
    expect(limit.stats().probing).toBe(true);
    window(limit, clock, 60, 3);
    expect(limit.stats().baselineMs).toBe(60);
    // 60 ms is now under target (1.5 × 60): the limit grows again.
    const before = limit.limit;
    window(limit, clock, 60, before);
    expect(limit.limit).toBeGreaterThan(before);
  });

  it('relative target: one low window does not lower the baseline, two in a row do', () => {
    const { clock, limit } = makeRelative({ ratio: 1.5, minRttWindowMs: 60_000 });
    window(limit, clock, 20, 3);
    window(limit, clock, 12, 10); // noise (e.g. an over-large lag discount): baseline holds
    expect(limit.stats().baselineMs).toBe(20);
    window(limit, clock, 14, 11);
    expect(limit.stats().baselineMs).toBe(14);
  });

  it('relative target: a window at or under the probe limit re-measures the baseline', () => {
    const { clock, limit } = makeRelative({ ratio: 1.5, minRttWindowMs: 60_000 }, { initialLimit: 3 });
    window(limit, clock, 10, 3); // probe measured while the host was unusually fast
    // One request at a time takes 20 ms: over 1.5 × 10, but that is the host's unloaded
    // latency, not overload. The baseline follows it instead of pinning the limit at 1.
    window(limit, clock, 20, 3);
    expect(limit.stats().baselineMs).toBe(20);
    expect(limit.limit).toBe(4);
  });

  it('validates options, naming the option and the value', () => {
    const clock = new FakeClock();
    expect(() => new AimdLimit({ backoffRatio: 2 }, clock)).toThrow(
      /Expected `backoffRatio` to be a finite number in \[0\.5, 1\), got 2/,
    );
    expect(() => new AimdLimit({ initialLimit: 500 }, clock)).toThrow(InvalidArgumentError);
    expect(() => new AimdLimit({ minLimit: 5, maxLimit: 4 }, clock)).toThrow(/minLimit/);
    expect(() => new AimdLimit({ target: { kind: 'absolute', latencyMs: 0 } }, clock)).toThrow(
      /target\.latencyMs/,
    );
  });

  it('limits made from one options object share its checked settings, never their state', () => {
    const clock = new FakeClock();
    const options: AimdOptions = { ...LIMITS, windowMs: 100, minWindowSamples: 4, slowStart: false };
    const a = new AimdLimit(options, clock);
    const b = new AimdLimit(options, clock);
    window(a, clock, 1, 10, { dropped: true });
    expect(a.limit).toBeLessThan(10);
    expect(b.limit).toBe(10);
    // Another options object is checked on its own: a bad value is still refused.
    expect(() => new AimdLimit({ ...options, backoffRatio: 2 }, clock)).toThrow(/backoffRatio/);
  });

  it('percentile uses the nearest rank', () => {
    expect(percentile([5, 1, 4, 2, 3], 0.5)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 0.9)).toBe(5);
    expect(percentile([7], 0.01)).toBe(7);
  });
});

describe('AimdLimit on a simulated server with a capacity knee', () => {
  const K = 32;
  const run = (lagMs: number | ((atMs: number) => number) = 0) => {
    const clock = new FakeClock();
    const limit = new AimdLimit({}, clock);
    const limiter = new ConcurrencyLimiter(limit, clock);
    const result = runKneeSim({
      clock,
      limiter,
      knee: K,
      // 100 ms: at 20 ms the target's minimum margin (10 ms, the crawler's own noise floor)
      // governs instead of the ratio, and the limit settles at 1.5K by design.
      baseMs: 100,
      durationMs: 180_000,
      jitter: 0.2,
      lagMs,
    });
    return result;
  };

  it('converges into [0.7K, 1.3K] with the default options', () => {
    const result = run();
    const w = result.window(60_000);
    expect(w.mean).toBeGreaterThanOrEqual(0.7 * K);
    expect(w.mean).toBeLessThanOrEqual(1.3 * K);
    expect(w.min).toBeGreaterThanOrEqual(0.7 * K);
    // The relative target (1.15 × the unloaded latency) puts the equilibrium near 1.15K = 37, and
    // AIMD saws around it, inside the band.
    expect(w.max).toBeLessThanOrEqual(1.3 * K);
    // Close to the server's capacity: K / baseMs = 0.32 requests per ms.
    expect(result.completed / 180_000).toBeGreaterThan(0.9 * (K / 100));
  });

  it.each([
    ['a breaker stops the requests and its probe resumes the limit', true],
    ['no breaker: the drops go on, the first success after them resumes it', false],
  ])('a 6 s outage at the knee: %s; back near the knee within a second, never past it', (_, breaker) => {
    const clock = new FakeClock();
    const limiter = new ConcurrencyLimiter(new AimdLimit({}, clock), clock);
    const result = runKneeSim({
      clock,
      limiter,
      knee: K,
      baseMs: 100,
      durationMs: 70_000,
      jitter: 0.2,
      outage: { fromMs: 60_000, toMs: 66_000, breaker },
    });
    const before = result.window(50_000, 60_000);
    expect(before.min).toBeGreaterThanOrEqual(0.7 * K);
    // The drops cut the limit: once per window, without a breaker for all of the 6 s.
    expect(result.window(65_000, 66_000).max).toBeLessThan(before.min);
    // The first success comes 100 ms after the recovery; doubling back takes a few short windows.
    const after = result.window(67_000, 70_000);
    expect(after.min).toBeGreaterThanOrEqual(0.7 * K);
    // Doubled back no further than the last good limit: the knee holds.
    expect(result.window(66_000, 70_000).max).toBeLessThanOrEqual(Math.max(1.3 * K, before.max));
  });

  it('a flaky host (one request in four fails for 6 s): one cut per 1 s window, back in 2 s', () => {
    const clock = new FakeClock();
    const limiter = new ConcurrencyLimiter(new AimdLimit({}, clock), clock);
    const result = runKneeSim({
      clock,
      limiter,
      knee: K,
      baseMs: 100,
      durationMs: 70_000,
      jitter: 0.2,
      outage: { fromMs: 60_000, toMs: 66_000, failEvery: 4 },
    });
    const before = result.window(50_000, 60_000);
    // One cut of backoffRatio (0.9) per second: about half of before after 6 s, not the minimum.
    expect(result.window(65_000, 66_000).min).toBeGreaterThanOrEqual(0.4 * before.min);
    expect(result.window(68_000, 70_000).min).toBeGreaterThanOrEqual(0.7 * K);
  });

  it('neither collapses nor drifts when event-loop lag inflates every sample', () => {
    // A saturated crawler: every sample is discounted, so nothing moves the limit either way.
    const w = run(400).window(5_000);
    expect(w.min).toBeGreaterThanOrEqual(aimdDefaults.initialLimit);
    expect(w.max).toBeLessThanOrEqual(aimdDefaults.initialLimit);
  });

  it('still converges when the event loop lags for 5 s out of every 10', () => {
    const w = run((atMs) => (Math.floor(atMs / 5000) % 2 === 1 ? 400 : 0)).window(60_000);
    expect(w.min).toBeGreaterThanOrEqual(0.7 * K);
    expect(w.max).toBeLessThanOrEqual(1.3 * K);
  });
});
