import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisWorkSharing } from '../../src/adapters/peers/redis-work-sharing.js';
import { RedisUnavailableError } from '../../src/core/errors.js';
import { useRedis } from '../helpers/redis-server.js';

/** Hunger marks in a real Redis (adapters/peers/redis-work-sharing.ts), times as the daemons give them. */
const fx = useRedis();
const clients: Redis[] = [];
const daemon = (id: string, prefix = 'crawld') => {
  const c = new Redis(fx.server.url);
  clients.push(c);
  return new RedisWorkSharing(c, prefix, id);
};
afterAll(async () => {
  for (const c of clients) c.disconnect();
});
beforeEach(async () => {
  await fx.admin.flushdb();
});

describe('RedisWorkSharing', () => {
  it('tells the others that a daemon is hungry until its mark lapses, not itself', async () => {
    const late = daemon('late');
    const busy = daemon('busy');
    const t = 1_700_000_000_000;
    expect(await busy.othersHungry(t)).toBe(false);
    await late.hungry(t, t + 1000);
    expect(await busy.othersHungry(t)).toBe(true);
    expect(await busy.othersHungry(t + 999)).toBe(true);
    expect(await busy.othersHungry(t + 1000)).toBe(false);
    // Its own mark is not another's.
    expect(await late.othersHungry(t)).toBe(false);
    // A later mark moves it.
    await late.hungry(t + 500, t + 1500);
    expect(await busy.othersHungry(t + 1200)).toBe(true);
    // Under the frontier's global tag.
    expect(await fx.admin.zscore('{crawld}:hungry', 'late')).toBe(String(t + 1500));
  });

  it('removes a fed daemon’s mark, and lapsed marks when one is written', async () => {
    const a = daemon('a');
    const b = daemon('b');
    const c = daemon('c');
    const t = 1_700_000_000_000;
    await a.hungry(t, t + 1000);
    await b.hungry(t, t + 1000);
    await a.fed();
    expect(await c.othersHungry(t)).toBe(true);
    await b.fed();
    expect(await c.othersHungry(t)).toBe(false);
    // A dead daemon's mark lapses, and goes with the next mark written after.
    await a.hungry(t, t + 1000);
    await b.hungry(t + 2000, t + 3000);
    expect(await fx.admin.zrange('{crawld}:hungry', 0, -1)).toEqual(['b']);
  });

  it('keeps crawls on other key prefixes apart', async () => {
    const t = 1_700_000_000_000;
    await daemon('a', 'one').hungry(t, t + 1000);
    expect(await daemon('b', 'two').othersHungry(t)).toBe(false);
    expect(await daemon('b', 'one').othersHungry(t)).toBe(true);
  });

  it('fails with RedisUnavailableError when Redis cannot be reached', async () => {
    const c = new Redis({ port: 1, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    c.on('error', () => {});
    clients.push(c);
    const s = new RedisWorkSharing(c, 'crawld', 'a');
    await expect(s.othersHungry(0)).rejects.toBeInstanceOf(RedisUnavailableError);
    await expect(s.hungry(0, 1)).rejects.toBeInstanceOf(RedisUnavailableError);
  });
});
