/**
 * Named maps in a Redis frontier's Redis, shared by its daemons. Per map, under one hash tag
 * (one slot on a Cluster): a hash of entries by id, a version counter, and a log of which id
 * changed at which version, so a daemon fetches only what changed since its version. The log
 * keeps the last LOG_LIMIT changes; a daemon further behind reloads the whole map.
 */
import type { MapChange, MapChanges, MapSnapshot, SharedMapStore } from '../../ports/shared-map.js';
import { type RedisLike, redisCall, type ScriptArg, script } from '../frontier/redis/client.js';

/** Changes kept in the log (ids of changed entries), far more than a cookie jar holds. */
const LOG_LIMIT = 10_000;

/** KEYS: entries hash, version, log zset, floor. ARGV: log limit, then id, json ('' removes) pairs. */
const WRITE = `
local v = 0
for i = 2, #ARGV, 2 do
  v = redis.call('INCR', KEYS[2])
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i])
  else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
  redis.call('ZADD', KEYS[3], v, ARGV[i])
end
local over = redis.call('ZCARD', KEYS[3]) - tonumber(ARGV[1])
if over > 0 then
  local gone = redis.call('ZRANGE', KEYS[3], over - 1, over - 1, 'WITHSCORES')
  redis.call('ZREMRANGEBYRANK', KEYS[3], 0, over - 1)
  redis.call('SET', KEYS[4], gone[2])
end
return v`;

/**
 * KEYS as WRITE. ARGV: the caller's version. Reply: {version, reset (0/1), id, json, ...}:
 * nothing after version when nothing changed; every cookie when reset (the caller is older
 * than the log, or more than 1000 changes behind); else the ids changed since, each with its
 * json or '' if removed.
 */
const CHANGES = `
local v = tonumber(redis.call('GET', KEYS[2]) or '0')
local since = tonumber(ARGV[1])
if v == since then return {v, 0} end
local floor = tonumber(redis.call('GET', KEYS[4]) or '0')
local out = {v, 0}
local ids = {}
if since <= v and since >= floor then
  ids = redis.call('ZRANGEBYSCORE', KEYS[3], '(' .. since, '+inf', 'LIMIT', 0, 1001)
end
if since > v or since < floor or #ids > 1000 then
  out[2] = 1
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all do out[#out + 1] = all[i] end
  return out
end
if #ids == 0 then return out end
local values = redis.call('HMGET', KEYS[1], unpack(ids))
for i = 1, #ids do
  out[#out + 1] = ids[i]
  out[#out + 1] = values[i] or ''
end
return out`;

export class RedisMapStore implements SharedMapStore {
  readonly shared = true;

  /** Keys `{PREFIX:KIND:MAP}:*`: `kind` a fixed word of the caller's (cookies, render). */
  readonly #client: RedisLike;
  readonly #keyPrefix: string;
  readonly #kind: string;

  constructor(client: RedisLike, keyPrefix: string, kind: string) {
    this.#client = client;
    this.#keyPrefix = keyPrefix;
    this.#kind = kind;
  }

  async open(): Promise<void> {
    const has = this.#client as unknown as Record<string, unknown>;
    if (typeof has.crawldMapWrite !== 'function')
      this.#client.defineCommand('crawldMapWrite', { numberOfKeys: 4, lua: WRITE });
    if (typeof has.crawldMapChanges !== 'function')
      this.#client.defineCommand('crawldMapChanges', { numberOfKeys: 4, lua: CHANGES });
  }

  async load(map: string): Promise<MapSnapshot> {
    const got = await this.changesSince(map, -1);
    return { entries: got.changes, version: got.version };
  }

  async write(map: string, changes: readonly MapChange[]): Promise<void> {
    if (changes.length === 0) return;
    const args: ScriptArg[] = [LOG_LIMIT];
    for (const c of changes) args.push(c.id, c.json ?? '');
    await this.#call('crawldMapWrite', map, args);
  }

  async changesSince(map: string, version: number): Promise<MapChanges> {
    const reply = (await this.#call('crawldMapChanges', map, [version])) as (string | number)[];
    const changes: MapChange[] = [];
    for (let i = 2; i + 1 < reply.length; i += 2) {
      const json = String(reply[i + 1]);
      changes.push(json === '' ? { id: String(reply[i]) } : { id: String(reply[i]), json });
    }
    return { version: Number(reply[0]), reset: Number(reply[1]) === 1, changes };
  }

  async close(): Promise<void> {}

  async #call(name: string, map: string, args: readonly ScriptArg[]): Promise<unknown> {
    const tag = `{${this.#keyPrefix}:${this.#kind}:${map}}`;
    const keys = [`${tag}:map`, `${tag}:v`, `${tag}:log`, `${tag}:floor`];
    return redisCall(() => script(this.#client, name, keys, args));
  }
}
