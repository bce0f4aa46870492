import { describe, expect, it } from 'vitest';
import { LruMap } from '../../src/core/lru-map.js';

const keys = <V>(m: LruMap<string, V>) => [...m.entries()].map(([k]) => k);

describe('LruMap', () => {
  it('forgets the oldest entry nobody asked for once past maxSize', () => {
    const evicted: string[] = [];
    const m = new LruMap<string, number>(2, undefined, (_v, k) => evicted.push(k));
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    expect(keys(m)).toEqual(['b', 'c']);
    expect(evicted).toEqual(['a']);
    expect(m.get('a')).toBeUndefined();
  });

  it('gives an entry read by get() a second chance, but not one read by peek()', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    expect(m.get('a')).toBe(1);
    m.set('c', 3);
    expect(keys(m).sort()).toEqual(['a', 'c']);

    const p = new LruMap<string, number>(2);
    p.set('a', 1);
    p.set('b', 2);
    expect(p.peek('a')).toBe(1);
    p.set('c', 3);
    expect(keys(p)).toEqual(['b', 'c']);
  });

  it('uses the second chance once: an entry not read again goes on the next round', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.get('a');
    m.set('c', 3); // b goes; a stays, unmarked
    m.get('c');
    m.set('d', 4); // a was not read since: it goes, not c
    expect(keys(m).sort()).toEqual(['c', 'd']);
  });

  it('keeps entries that may not be evicted, growing past maxSize while nothing else can go', () => {
    const busy = new Set(['a', 'b', 'c']);
    const m = new LruMap<string, number>(2, (_v, k) => !busy.has(k));
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    expect(m.size).toBe(3);
    busy.delete('a');
    m.get('a'); // a second chance does not save it: the map is over its size
    m.set('d', 4);
    expect(keys(m)).toEqual(['b', 'c']);
  });

  it('set() on a known key replaces its value and makes it the newest', () => {
    const m = new LruMap<string, number>(2);
    m.set('a', 1);
    m.set('b', 2);
    m.set('a', 10);
    m.set('c', 3);
    expect([...m.entries()]).toEqual([
      ['a', 10],
      ['c', 3],
    ]);
    expect(m.delete('a')).toBe(true);
    expect(m.size).toBe(1);
  });
});
