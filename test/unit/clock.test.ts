import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, systemClock } from '../../src/core/clock.js';
import { pause } from '../helpers/wait.js';

describe('systemClock.setTimer', () => {
  it('caps a delay past 2^31-1 ms instead of letting Node fire it after 1 ms', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    let fired = false;
    const timer = systemClock.setTimer(() => {
      fired = true;
    }, 30 * 86_400_000); // a monthly recrawl's wake-up
    await pause(30, 'nothing may happen: Node fires an overflowing timer after 1 ms');
    timer.cancel();
    process.off('warning', onWarning);
    expect(fired).toBe(false);
    expect(warnings.map((w) => w.name)).not.toContain('TimeoutOverflowWarning');
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
  });
});
