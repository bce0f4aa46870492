/**
 * Limit hints (core/limit/limit-hints.ts, adapters/shared-map/stored-limit-hints.ts) on a fake clock:
 * what a daemon writes of its host limits and when, what the entries read say a new host starts
 * at, and daemons sharing one store. The same on a real Redis: test/integration/redis-limit-hints.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { StoredLimitHints } from '../../src/adapters/shared-map/stored-limit-hints.js';
import { FakeClock } from '../../src/core/clock.js';
import type { LimitAlgorithm } from '../../src/core/limit/limit.js';
import { HostLimitHints, LIMIT_HINTS, LimitPublisher } from '../../src/core/limit/limit-hints.js';
import { HostLimiters } from '../../src/core/limiter.js';
import type { MapChange, MapChanges, MapSnapshot, SharedMapStore } from '../../src/ports/shared-map.js';

const T0 = 1_700_000_000_000;

describe('HostLimitHints', () => {
  it('hints the lower median of the daemons’ entries', () => {
    const h = new HostLimitHints();
    expect(h.hint('a.test', T0)).toBeUndefined();
    h.set('a.test', 'd0', { limit: 256, at: T0 });
    expect(h.hint('a.test', T0)).toBe(256);
    // Of two daemons, the lower: a hint never pushes a host harder than its crawlers found it takes.
    h.set('a.test', 'd1', { limit: 150, at: T0 });
    expect(h.hint('a.test', T0)).toBe(150);
    h.set('a.test', 'd2', { limit: 200, at: T0 });
    expect(h.hint('a.test', T0)).toBe(200);
    expect(h.hint('b.test', T0)).toBeUndefined();
    // A daemon's new entry replaces its old one; no entry removes it.
    h.set('a.test', 'd2', { limit: 100, at: T0 });
    expect(h.hint('a.test', T0)).toBe(150);
    h.set('a.test', 'd1', undefined);
    expect(h.hint('a.test', T0)).toBe(100);
    h.set('a.test', 'd0', undefined);
    h.set('a.test', 'd2', undefined);
    expect(h.size).toBe(0);
  });

  it('leaves out entries older than maxAgeMs', () => {
    const h = new HostLimitHints();
    h.set('a.test', 'd0', { limit: 32, at: T0 });
    h.set('a.test', 'd1', { limit: 200, at: T0 + 60_000 });
    expect(h.hint('a.test', T0 + LIMIT_HINTS.maxAgeMs)).toBe(32);
    expect(h.hint('a.test', T0 + LIMIT_HINTS.maxAgeMs + 1)).toBe(200);
    expect(h.hint('a.test', T0 + 60_000 + LIMIT_HINTS.maxAgeMs + 1)).toBeUndefined();
  });
});

describe('LimitPublisher', () => {
  const limits = (m: Record<string, number>) => (host: string) => m[host];

  it('writes a host once its limit went above initialLimit, then only notable moves', () => {
    const p = new LimitPublisher();
    const now = new Map<string, number>([['a.test', 8]]);
    const current = (host: string) => now.get(host);
    p.changed('a.test', 8, 8);
    expect(p.size).toBe(0); // at initialLimit: a broad crawl's hosts write nothing
    now.set('a.test', 16);
    p.changed('a.test', 16, 8);
    expect(p.due(T0, current)).toEqual([{ host: 'a.test', limit: 16 }]);
    expect(p.due(T0 + 5000, current)).toEqual([]);
    // +19 %: not notable; +25 %: written.
    p.changed('a.test', 19, 8);
    expect(p.due(T0 + 6000, current)).toEqual([]);
    p.changed('a.test', 20, 8);
    expect(p.due(T0 + 7000, current)).toEqual([{ host: 'a.test', limit: 20 }]);
    // Down by a fifth, and below initialLimit too: the median must see a host that proved slow.
    p.changed('a.test', 4, 8);
    expect(p.due(T0 + 8000, current)).toEqual([{ host: 'a.test', limit: 4 }]);
  });

  it('writes a host at most once per publishEveryMs, its limit as it is then', () => {
    const p = new LimitPublisher();
    const m = { 'a.test': 16 };
    p.changed('a.test', 16, 8);
    expect(p.due(T0, limits(m))).toEqual([{ host: 'a.test', limit: 16 }]);
    p.changed('a.test', 32, 8);
    p.changed('a.test', 64, 8);
    expect(p.due(T0 + LIMIT_HINTS.publishEveryMs - 1, limits(m))).toEqual([]);
    expect(p.due(T0 + LIMIT_HINTS.publishEveryMs, limits(m))).toEqual([{ host: 'a.test', limit: 64 }]);
  });

  it('refreshes an unchanged limit every refreshMs, and removes a host its limiters forgot', () => {
    const p = new LimitPublisher();
    const m: Record<string, number> = { 'a.test': 256, 'b.test': 100 };
    p.changed('a.test', 256, 8);
    p.changed('b.test', 100, 8);
    expect(p.due(T0, limits(m))).toHaveLength(2);
    expect(p.due(T0 + LIMIT_HINTS.refreshMs - 1, limits(m))).toEqual([]);
    delete m['b.test'];
    expect(p.due(T0 + LIMIT_HINTS.refreshMs, limits(m))).toEqual([
      { host: 'a.test', limit: 256 },
      { host: 'b.test' },
    ]);
    expect(p.size).toBe(1);
  });
});

/** One SharedMapStore that several daemons share, in memory: entries, a version, a log. */
class SharedMemoryStore implements SharedMapStore {
  readonly shared = true;
  readonly maps = new Map<string, { entries: Map<string, string>; log: { v: number; id: string }[] }>();
  writes = 0;
  reads = 0;
  async open(): Promise<void> {}
  async close(): Promise<void> {}
  #map(name: string) {
    let m = this.maps.get(name);
    if (!m) {
      m = { entries: new Map(), log: [] };
      this.maps.set(name, m);
    }
    return m;
  }
  async load(map: string): Promise<MapSnapshot> {
    const m = this.#map(map);
    return { entries: [...m.entries].map(([id, json]) => ({ id, json })), version: m.log.length };
  }
  async write(map: string, changes: readonly MapChange[]): Promise<void> {
    this.writes++;
    const m = this.#map(map);
    for (const c of changes) {
      if (c.json === undefined) m.entries.delete(c.id);
      else m.entries.set(c.id, c.json);
      m.log.push({ v: m.log.length + 1, id: c.id });
    }
  }
  async changesSince(map: string, version: number): Promise<MapChanges> {
    this.reads++;
    const m = this.#map(map);
    const ids = new Set(m.log.filter((e) => e.v > version).map((e) => e.id));
    const changes = [...ids].map((id) => {
      const json = m.entries.get(id);
      return json === undefined ? { id } : { id, json };
    });
    return { changes, reset: false, version: m.log.length };
  }
}

/** Lets the store's promises settle (the fake store answers in microtasks). */
const settle = async () => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

function daemon(
  store: SharedMapStore,
  clock: FakeClock,
  instanceId: string,
  limits = new Map<string, number>(),
) {
  const hints = new StoredLimitHints({ store, instanceId, clock, current: (h) => limits.get(h) });
  const set = (host: string, limit: number) => {
    limits.set(host, limit);
    hints.changed(host, limit, 8);
  };
  return { hints, limits, set };
}

describe('StoredLimitHints: daemons sharing one store', () => {
  it('a daemon that starts later loads what the others wrote; a running one reads it within a period', async () => {
    const clock = new FakeClock(T0);
    const store = new SharedMemoryStore();
    const a = daemon(store, clock, 'a');
    const b = daemon(store, clock, 'b');
    await a.hints.open();
    await b.hints.open();
    a.set('shop.test', 16);
    a.set('shop.test', 200);
    expect(b.hints.hint('shop.test')).toBeUndefined();
    clock.advance(1000); // a writes, b reads: both on their one-second timers
    await settle();
    clock.advance(1000);
    await settle();
    expect(b.hints.hint('shop.test')).toBe(200);
    expect(store.maps.get('http')?.entries.get('shop.test|a')).toBe(JSON.stringify({ l: 200, t: T0 + 1000 }));
    const late = daemon(store, clock, 'late');
    await late.hints.open();
    expect(late.hints.hint('shop.test')).toBe(200);
    // b's own limit joins the median: of 200 and 120, the lower.
    b.set('shop.test', 120);
    await b.hints.tick();
    await late.hints.tick();
    expect(late.hints.hint('shop.test')).toBe(120);
    for (const d of [a, b, late]) await d.hints.close();
  });

  it('one write and one read per period, whatever the number of hosts; none after close', async () => {
    const clock = new FakeClock(T0);
    const store = new SharedMemoryStore();
    const a = daemon(store, clock, 'a');
    await a.hints.open();
    for (let i = 0; i < 100; i++) a.set(`h${i}.test`, 64);
    a.set('slow.test', 8); // never above initialLimit: not written
    clock.advance(1000);
    await settle();
    expect(store.writes).toBe(1);
    expect(store.maps.get('http')?.entries.size).toBe(100);
    expect(store.reads).toBe(1);
    await a.hints.close();
    clock.advance(5000);
    await settle();
    expect(store.reads).toBe(1);
  });

  it('entries not its own are ignored when malformed', async () => {
    const clock = new FakeClock(T0);
    const store = new SharedMemoryStore();
    await store.write('http', [
      { id: 'x.test|d0', json: '{"l":"many"}' },
      { id: 'x.test|d1', json: 'not json' },
      { id: 'nohost', json: '{"l":64,"t":0}' },
      { id: 'y.test|d|with|bars', json: JSON.stringify({ l: 64, t: T0 }) },
    ]);
    const a = daemon(store, clock, 'a');
    await a.hints.open();
    expect(a.hints.hint('x.test')).toBeUndefined();
    expect(a.hints.hint('y.test')).toBe(64);
    await a.hints.close();
  });
});

describe('HostLimiters.startLimit', () => {
  it('starts a new host’s limit from the hint, and tells the kind with each change', () => {
    const clock = new FakeClock();
    const made: { host: string; start: number | undefined }[] = [];
    const changes: unknown[] = [];
    const hints = new Map([['known.test', 128]]);
    const limiters = new HostLimiters(
      {
        createLimit: (host, _kind, start) => {
          made.push({ host, start });
          return fixed(start ?? 8, host);
        },
        startLimit: (host, kind) => (kind === 'http' ? hints.get(host) : undefined),
      },
      clock,
    );
    limiters.onLimitChange((...args) => changes.push(args));
    // A host not met yet: where its limit will start (the scheduler buffers it for that).
    expect(limiters.limitOf('known.test')).toBe(128);
    expect(limiters.limitOf('other.test')).toBe(8);
    expect(limiters.limitOf('known.test', 'browser')).toBe(8);
    made.length = 0;
    limiters.tryAcquire('known.test')?.ignore();
    limiters.tryAcquire('other.test')?.ignore();
    limiters.tryAcquire('render.test', 'browser')?.ignore();
    expect(made).toEqual([
      { host: 'known.test', start: 128 },
      { host: 'other.test', start: undefined },
      { host: 'render.test', start: undefined },
    ]);
    expect(limiters.known('known.test')).toEqual({ limit: 128, kind: 'http' });
    expect(limiters.known('render.test')).toEqual({ limit: 8, kind: 'browser' });
    expect(limiters.known('nowhere.test')).toBeUndefined();
    algorithms.get('render.test')?.set(4);
    algorithms.get('known.test')?.set(150);
    expect(changes).toEqual([
      ['render.test', 4, undefined, 'browser'],
      ['known.test', 150, undefined, 'http'],
    ]);
  });
});

const algorithms = new Map<string, Settable>();

/** A limit that stays where it starts until set. */
class Settable implements LimitAlgorithm {
  readonly #listeners = new Set<(limit: number) => void>();
  limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  onSample(): void {}
  onChange(listener: (limit: number) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  set(limit: number): void {
    this.limit = limit;
    for (const l of this.#listeners) l(limit);
  }
}

function fixed(limit: number, host?: string): LimitAlgorithm {
  const a = new Settable(limit);
  if (host) algorithms.set(host, a);
  return a;
}
