import { describe, expect, it } from 'vitest';
import { TypedEmitter } from '../../src/core/events.js';

type Events = { a: { n: number }; b: { n: number } };

describe('TypedEmitter (safe emit)', () => {
  it('isolates a throwing listener: emit does not throw, the others run, the handler hears of it', () => {
    const failed: [string, string][] = [];
    const ee = new TypedEmitter<Events>({
      onListenerError: (event, err) => failed.push([event, String(err)]),
    });
    const seen: number[] = [];
    ee.on('a', (p) => seen.push(p.n));
    ee.on('a', () => {
      throw new Error('boom');
    });
    ee.on('a', (p) => seen.push(p.n * 10));
    expect(() => ee.emit('a', { n: 1 })).not.toThrow();
    expect(seen).toEqual([1, 10]);
    expect(failed).toEqual([['a', 'Error: boom']]);
  });

  it('a handler that throws is contained too; unsubscribe still works', () => {
    const ee = new TypedEmitter<Events>({
      onListenerError: () => {
        throw new Error('handler');
      },
    });
    let calls = 0;
    const off = ee.on('b', () => {
      calls++;
      throw new Error('listener');
    });
    expect(() => ee.emit('b', { n: 1 })).not.toThrow();
    off();
    ee.emit('b', { n: 2 });
    expect(calls).toBe(1);
    expect(ee.listenerCount('b')).toBe(0);
  });
});
