import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { LoopTurn } from '../../src/adapters/fetch/loop-turn.js';

describe('LoopTurn', () => {
  it('inside a turn, a response waited for the ones parsed before it', () => {
    const turn = new LoopTurn(() => 0);
    expect(turn.queuedMs(1000)).toBe(0);
    expect(turn.queuedMs(1004)).toBe(4);
    expect(turn.queuedMs(1010)).toBe(10);
  });

  it('a turn after an idle poll owes nothing to the previous one', async () => {
    let idle = 0;
    const turn = new LoopTurn(() => idle);
    turn.queuedMs(1000);
    await nextTurn();
    idle = 0.5; // the loop waited in the poll: the next data woke it
    expect(turn.queuedMs(1040)).toBe(0);
    expect(turn.queuedMs(1043)).toBe(3);
  });

  it('a turn after a busy stretch counts half of it: the data arrived somewhere in it', async () => {
    const turn = new LoopTurn(() => 7); // idle time never grows: the loop never waited
    turn.queuedMs(1000);
    await nextTurn();
    expect(turn.queuedMs(1030)).toBe(15);
    expect(turn.queuedMs(1032)).toBe(17);
    await nextTurn();
    expect(turn.queuedMs(1040)).toBe(5); // measured from the previous turn's start, 1030
  });

  it('never returns less than 0 when the clock argument goes backwards', () => {
    const turn = new LoopTurn(() => 0);
    turn.queuedMs(1000);
    expect(turn.queuedMs(999)).toBe(0);
  });
});
