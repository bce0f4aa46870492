import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import { LEASE_AHEAD, sharingAhead, shedPlan } from '../../src/engine/scheduler/lease-ahead.js';
import { WORK_SHARE, WorkShare } from '../../src/engine/scheduler/work-share.js';
import { HungerBoard } from '../helpers/work-sharing.js';

/** Work sharing between the daemons of a shared frontier (engine/scheduler/work-share.ts), on a fake clock. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

/** Moves the clock `ms` in steps of at most `step`, letting each check's reply arrive (it re-arms after it). */
async function run(clock: FakeClock, ms: number, step = WORK_SHARE.checkMs): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    clock.advance(Math.min(step, left));
    await flush();
  }
}

function setUp() {
  const clock = new FakeClock();
  const board = new HungerBoard();
  const errors: unknown[] = [];
  let sheds = 0;
  const make = (id: string) =>
    new WorkShare(board.port(id), clock, {
      shed: () => {
        sheds++;
      },
      onError: (err) => errors.push(err),
    });
  return { clock, board, errors, make, sheds: () => sheds };
}

describe('WorkShare, the hungry side', () => {
  it('marks itself hungry for hungerMs when a lease finds nothing it could start, refreshed at most every refreshMs', async () => {
    const { clock, board, make } = setUp();
    const me = make('new');
    me.leased(0, true);
    await flush();
    expect(board.until('new')).toBe(clock.now() + WORK_SHARE.hungerMs);
    expect(me.hungry).toBe(true);
    const first = board.writes;
    // Leases every few ms while hungry: one write per refreshMs, not one per lease.
    for (let t = 0; t < WORK_SHARE.refreshMs - 10; t += 10) {
      clock.advance(10);
      me.leased(0, true);
    }
    await flush();
    expect(board.writes).toBe(first);
    clock.advance(10);
    me.leased(0, true);
    await flush();
    expect(board.writes).toBe(first + 1);
    expect(board.until('new')).toBe(clock.now() + WORK_SHARE.hungerMs);
  });

  it('is not hungry when the lease found work, or it had something to start; the mark then lapses by itself', async () => {
    const { clock, board, make } = setUp();
    const me = make('a');
    me.leased(3, true);
    me.leased(0, false);
    await flush();
    expect(board.writes).toBe(0);
    expect(me.hungry).toBe(false);
    me.leased(0, true);
    await flush();
    me.leased(5, false);
    // Fed: the mark stays until it lapses (the others go on sharing until then).
    expect(board.until('a')).toBeGreaterThan(clock.now());
    clock.advance(WORK_SHARE.hungerMs);
    expect(me.hungry).toBe(false);
    expect(await board.port('b').othersHungry(clock.now())).toBe(false);
  });

  it('polls every hungryPollMs for the first fastPollForMs of a hunger, then as an idle daemon does', () => {
    const { clock, make } = setUp();
    const me = make('a');
    expect(me.pollMs()).toBe(Number.POSITIVE_INFINITY);
    me.leased(0, true);
    expect(me.pollMs()).toBe(WORK_SHARE.hungryPollMs);
    clock.advance(WORK_SHARE.fastPollForMs - 1);
    me.leased(0, true);
    expect(me.pollMs()).toBe(WORK_SHARE.hungryPollMs);
    clock.advance(1);
    expect(me.pollMs()).toBe(Number.POSITIVE_INFINITY);
    // Fed, then hungry again: a new hunger, polled fast again.
    me.leased(1, true);
    expect(me.pollMs()).toBe(Number.POSITIVE_INFINITY);
    me.leased(0, true);
    expect(me.pollMs()).toBe(WORK_SHARE.hungryPollMs);
  });

  it('removes its mark when it stops, so the others stop sharing at once', async () => {
    const { clock, board, make } = setUp();
    const me = make('a');
    me.leased(0, true);
    await flush();
    expect(await board.port('b').othersHungry(clock.now())).toBe(true);
    await me.stop();
    expect(await board.port('b').othersHungry(clock.now())).toBe(false);
    // Stopped: no more marks.
    clock.advance(WORK_SHARE.refreshMs);
    me.leased(0, true);
    await flush();
    expect(board.until('a')).toBeUndefined();
  });
});

describe('WorkShare, the busy side', () => {
  it('asks every checkMs while busy, on one timer, and none while idle', async () => {
    const { clock, board, make } = setUp();
    const me = make('busy');
    expect(clock.pendingTimers()).toBe(0);
    // busy() is called on every pump: still one timer.
    for (let i = 0; i < 10; i++) me.busy(true);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(board.reads).toBe(1);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(board.reads).toBe(2);
    me.busy(false);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(10 * WORK_SHARE.checkMs);
    await flush();
    expect(board.reads).toBe(2);
  });

  it('shares while another daemon is hungry: short look-ahead, and its surplus handed back at each check', async () => {
    const { clock, make, sheds } = setUp();
    const busy = make('busy');
    const late = make('late');
    busy.busy(true);
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(busy.sharing).toBe(false);
    expect(sheds()).toBe(0);
    late.leased(0, true);
    await flush();
    // Heard at the next check, within checkMs.
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(busy.sharing).toBe(true);
    expect(sheds()).toBe(1);
    // The late one is fed; its mark lapses hungerMs after its last hungry lease, and the
    // sharing ends at the first check after that.
    late.leased(16, false);
    await run(clock, WORK_SHARE.hungerMs - WORK_SHARE.checkMs - 1);
    expect(busy.sharing).toBe(true);
    // Each check while the mark stood handed back what was beyond the short look-ahead.
    expect(sheds()).toBe((WORK_SHARE.hungerMs - 2 * WORK_SHARE.checkMs) / WORK_SHARE.checkMs + 1);
    await run(clock, WORK_SHARE.checkMs);
    expect(busy.sharing).toBe(false);
    const n = sheds();
    await run(clock, 5 * WORK_SHARE.checkMs);
    expect(sheds()).toBe(n);
  });

  it('does not share while hungry itself, and does not count its own mark', async () => {
    const { clock, make, sheds } = setUp();
    const a = make('a');
    const b = make('b');
    a.leased(0, true);
    a.busy(true);
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(a.sharing).toBe(false);
    b.leased(0, true);
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    // Both hungry: neither gives.
    expect(a.sharing).toBe(false);
    expect(sheds()).toBe(0);
  });

  it('reports a store that cannot be reached and goes on checking', async () => {
    const { clock, board, errors, make } = setUp();
    const me = make('a');
    board.down = true;
    me.busy(true);
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(errors).toHaveLength(1);
    expect(me.sharing).toBe(false);
    me.leased(0, true);
    await flush();
    expect(errors).toHaveLength(2);
    board.down = false;
    // The failed mark is written at the next hungry lease, not refreshMs later.
    me.leased(0, true);
    await flush();
    expect(board.until('a')).toBeDefined();
    clock.advance(WORK_SHARE.checkMs);
    await flush();
    expect(board.reads).toBeGreaterThan(0);
    expect(clock.pendingTimers()).toBe(1);
  });
});

describe('the look-ahead while sharing', () => {
  it('is what the daemon starts in shareWindowMs, at least minTasks, at most bufferSize', () => {
    const o = { bufferSize: 1024 };
    expect(sharingAhead(o, 0)).toBe(LEASE_AHEAD.minTasks);
    expect(sharingAhead(o, 700)).toBe(Math.ceil((700 * WORK_SHARE.shareWindowMs) / LEASE_AHEAD.windowMs));
    expect(sharingAhead({ bufferSize: 64 }, 100_000)).toBe(64);
  });

  it('hands back each host beyond its cap, then the longest queues down to a common length, never a host’s next task', () => {
    const hosts = (...sizes: [number, number][]) =>
      sizes.map(([size, cap], i) => ({ host: `h${i}`, size, cap }));
    // One host: down to the bound.
    expect(shedPlan(hosts([256, 512]), 84)).toEqual(new Map([['h0', 172]]));
    // Over its cap first.
    expect(shedPlan(hosts([300, 100]), 1000)).toEqual(new Map([['h0', 200]]));
    // Within bound and caps: nothing.
    expect(shedPlan(hosts([10, 20], [5, 20]), 15)).toEqual(new Map());
    // 50 + 30 + 5 over a bound of 45: a common length of 20 (20 + 20 + 5), one spare task to the first.
    expect(shedPlan(hosts([50, 100], [30, 100], [5, 100]), 46)).toEqual(
      new Map([
        ['h0', 29],
        ['h1', 10],
      ]),
    );
    // More hosts than the bound: each keeps its next task.
    expect(shedPlan(hosts([3, 10], [1, 1], [4, 10]), 2)).toEqual(
      new Map([
        ['h0', 2],
        ['h2', 3],
      ]),
    );
    // A waiting host's cap is 1.
    expect(shedPlan(hosts([3, 1]), 100)).toEqual(new Map([['h0', 2]]));
  });
});
