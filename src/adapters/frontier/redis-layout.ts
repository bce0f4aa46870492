/**
 * The version of the Redis frontier's data layout, kept under `{prefix}:layout`. A frontier
 * written by a crawld whose records had another layout is refused at open() with an error
 * naming both versions, never read with the wrong decoder. docs/redis.md, _Layout versions_.
 */
import { RedisLayoutError } from '../../core/errors.js';
import type { RedisLike } from './redis-client.js';
import type { RedisKeys } from './redis-keys.js';

/**
 * 1: msgpack maps as task records, 16-hex-digit ids (crawld up to session 9, no layout key).
 * 2: packed records (msgpack arrays, URL without scheme and host), 11-character ids.
 */
export const LAYOUT_VERSION = 2;

export { RedisLayoutError };

/** KEYS: seq, layout. ARGV: this version. Answers the stored version, stamping an empty frontier. */
const CHECK = `
local v = redis.call('GET', KEYS[2])
if v then return v end
if redis.call('EXISTS', KEYS[1]) == 1 then return '1' end
redis.call('SET', KEYS[2], ARGV[1])
return ARGV[1]
`;

/**
 * Stamps an empty frontier with LAYOUT_VERSION, or checks the stamp of an existing one. Data
 * without a stamp but with a sequence (every frontier that ever enqueued) is layout 1.
 */
export async function checkLayout(client: RedisLike, keys: RedisKeys, prefix: string): Promise<void> {
  const found = Number(await client.eval(CHECK, 2, keys.seq, keys.layout, String(LAYOUT_VERSION)));
  if (found === LAYOUT_VERSION) return;
  throw new RedisLayoutError(
    `the Redis frontier under keyPrefix "${prefix}" holds data in layout ${found}, and this crawld reads layout ${LAYOUT_VERSION} only: ` +
      `finish that crawl with the crawld that wrote it, or start this one on another keyPrefix or an empty database (docs/redis.md, "Layout versions")`,
  );
}
