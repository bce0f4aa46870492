/**
 * The version of the Redis frontier's data layout, kept under `{prefix}:layout`. A frontier
 * written by a crawld whose records had another layout is refused at open() with an error
 * naming both versions, never read with the wrong decoder; the one step crawld can take
 * itself (2 to 3, single Redis) is migrated at open(). docs/redis.md, _Layout versions_.
 */
import { RedisLayoutError } from '../../../core/errors.js';
import { type RedisLike, script } from '../../redis/redis-client.js';
import type { RedisKeys } from './keys.js';

/**
 * 1: msgpack maps as task records, 16-hex-digit ids (crawld before commit 62153e4, no layout key).
 * 2: packed records (msgpack arrays, URL without scheme and host), 11-character ids; each
 *    host's leases in its own zset, indexed by the due index and the leased-hosts set.
 * 3: (single Redis) as 2, but every lease in one zset `{prefix}:leases` (host|suffix|token → expiry),
 *    and a lease does not rewrite the task record.
 * A Cluster frontier stays at 2 (a script touches one slot: leases stay per host).
 */
export const LAYOUT_VERSION = 3;
export const CLUSTER_LAYOUT_VERSION = 2;

export { RedisLayoutError };

/**
 * Stamps an empty frontier with the kind's layout version, or checks the stamp of an existing
 * one (lua/layout-check.lua; the client has the frontier's scripts defined). Data without a
 * stamp but with a sequence (every frontier that ever enqueued) is layout 1. A single-Redis
 * frontier in layout 2 is migrated to 3 in one atomic script (lua/migrate.lua): its leases
 * move into the lease zset, tokens and expiries kept. Stop every older crawld on the frontier
 * first: they would go on writing per-host leases.
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
