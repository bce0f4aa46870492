/**
 * Trap decisions on a real Redis: what one daemon's hosts taught (a learned parameter, a stopped
 * pattern, a soft 404) reaches another daemon of the same crawl within its refresh, and a daemon
 * that starts later loads it (adapters/shared-map/shared-trap-memory.ts). The rules: test/unit/traps/.
 */
import { hash } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { RedisMapStore } from '../../src/adapters/shared-map/redis-map-store.js';
import { StoredTrapMemory } from '../../src/adapters/shared-map/shared-trap-memory.js';
import { FakeClock } from '../../src/core/clock.js';
import { fingerprint } from '../../src/core/traps/fingerprint.js';
import { TRAP_DEFAULTS } from '../../src/core/traps/trap-options.js';
import { useRedis } from '../helpers/redis-server.js';
import { waitFor } from '../helpers/wait.js';

const fx = useRedis();
const clients: Redis[] = [];
afterAll(() => {
  for (const c of clients) c.disconnect();
});
beforeEach(async () => {
  await fx.admin.flushdb();
});

async function daemon(clock: FakeClock) {
  const c = new Redis(fx.server.url);
  clients.push(c);
  const store = new RedisMapStore(c, 'crawld', 'traps');
  await store.open();
  const memory = new StoredTrapMemory({
    jobId: 'shop',
    store,
    options: TRAP_DEFAULTS,
    now: () => clock.now(),
  });
  await memory.open();
  return memory;
}

function observe(memory: StoredTrapMemory, url: string, body: string) {
  const buf = Buffer.from(`<nav>Home Shop Help</nav><main>${body}</main>`);
  return memory.get('h.test').observe({
    url,
    key: url,
    finalUrl: url,
    depth: 1,
    contentHash: hash('sha256', buf, 'hex'),
    fingerprint: () => fingerprint(buf),
  });
}

describe('trap decisions on Redis', () => {
  it('a parameter one daemon learned is in the other daemons’ keys within a refresh, and in a late one’s at start', async () => {
    const clock = new FakeClock(1_700_000_000_000);
    const a = await daemon(clock);
    const b = await daemon(clock);
    expect(b.peek('h.test')).toBeUndefined();
    observe(a, 'http://h.test/', 'Welcome to the shop, browse our catalogue of goods');
    for (const v of ['1', '2', '3', '4'])
      observe(a, `http://h.test/about?visit=${v}`, 'About us: a family firm');
    expect([...a.get('h.test').ignoredParams]).toEqual(['visit']);
    a.save('h.test');
    await a.close();
    // b reads the others' changes at most once a refresh (1 s): before it, nothing yet.
    b.get('other.test');
    expect(b.peek('h.test')).toBeUndefined();
    clock.advance(1000);
    b.get('other.test');
    await waitFor(() => b.peek('h.test')?.ignoredParams.has('visit'), 'b has the learned parameter');
    const late = await daemon(clock);
    expect([...(late.peek('h.test')?.ignoredParams ?? [])]).toEqual(['visit']);
    for (const m of [b, late]) await m.close();
  });
});
