/** The Redis frontier's data layout version (`{prefix}:layout`): another is refused at open(), 2 → 3 migrated (docs/redis.md). */
import { RedisLayoutError } from '../../../core/errors.js';
import { type RedisLike, script } from '../../redis/redis-client.js';
import type { RedisKeys } from './keys.js';

/** 1: msgpack maps, no layout key. 2: packed records, leases per host. 3 (single Redis): one lease zset.
 *  A Cluster stays at 2 (a script touches one slot). */
export const LAYOUT_VERSION = 3;
export const CLUSTER_LAYOUT_VERSION = 2;

export { RedisLayoutError };

/**
 * Stamps an empty frontier or checks the stamp (lua/layout-check.lua). Single Redis 2 → 3 in one
 * script (lua/migrate.lua); older crawlds on the frontier must be stopped first.
 */
export async function checkLayout(
  client: RedisLike,
  keys: RedisKeys,
  prefix: string,
  single = true,
): Promise<void> {
  const want = single ? LAYOUT_VERSION : CLUSTER_LAYOUT_VERSION;
  const found = Number(await script(client, 'crawldLayoutCheck', [keys.seq, keys.layout], [String(want)]));
  if (found === want) return;
  if (single && found === 2) {
    const b = keys.buckets[0]!;
    const list = [b.hosts, b.due, b.leasedHosts, keys.leases, keys.layout, keys.taskBuckets];
    await script(client, 'crawldMigrate', list, [prefix]);
    return;
  }
  throw new RedisLayoutError(
    `the Redis frontier under keyPrefix "${prefix}" holds data in layout ${found}, and this crawld reads layout ${want} only: ` +
      `finish that crawl with the crawld that wrote it, or start this one on another keyPrefix or an empty database (docs/redis.md, "Layout versions")`,
  );
}
