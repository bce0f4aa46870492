import { describe, expect, it } from 'vitest';
import { Listeners } from '../../src/core/listeners.js';
import { waitFor } from '../helpers/wait.js';

describe('Listeners (isolating emit)', () => {
  it('a throwing listener stops neither the others nor the caller; the handler hears of it', () => {
    const failed: [string, string][] = [];
    const listeners = new Listeners<[number, string]>('change', (event, err) =>
      failed.push([event, String(err)]),
    );
    const seen: string[] = [];
    listeners.add((n, why) => seen.push(`${n}:${why}`));
    listeners.add(() => {
      throw new Error('boom');
    });
    listeners.add((n) => seen.push(`${n * 10}`));
    expect(() => listeners.emit(1, 'up')).not.toThrow();
    expect(seen).toEqual(['1:up', '10']);
    expect(failed).toEqual([['change', 'Error: boom']]);
  });

  it('a handler that throws is contained too; unsubscribe removes the listener', () => {
    const listeners = new Listeners('tick', () => {
      throw new Error('handler');
    });
    let calls = 0;
    const off = listeners.add(() => {
      calls++;
      throw new Error('listener');
    });
    expect(() => listeners.emit()).not.toThrow();
    off();
    listeners.emit();
    expect(calls).toBe(1);
    expect(listeners.size).toBe(0);
  });

  it('without a handler, reports the error as a process warning naming the event', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const listeners = new Listeners<[string]>('probe-event');
      listeners.add(() => {
        throw new Error('bad subscriber');
      });
      listeners.emit('x');
      await waitFor(() => warnings.some((m) => m.includes("'probe-event'") && m.includes('bad subscriber')), {
        what: 'the listener warning',
        every: 'turn',
      });
    } finally {
      process.off('warning', onWarning);
    }
  });
});
