/** Named maps in the frontier's Redis: entries, a version and a log of changed ids (lua/map-*.lua),
 *  so a daemon reads only what changed; one further behind than the log reloads the map. */
import type { MapChange, MapChanges, MapSnapshot, SharedMapStore } from '../../ports/shared-map.js';
import { luaScript } from '../redis/lua-files.js';
import { defineScripts, type RedisLike, redisCall, type ScriptArg, script } from '../redis/redis-client.js';

/** Changes kept in the log (ids of changed entries), far more than a cookie jar holds. */
const LOG_LIMIT = 10_000;

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
    defineScripts(this.#client, {
      crawldMapWrite: { numberOfKeys: 4, lua: luaScript('adapters/shared-map/lua/map-write') },
      crawldMapChanges: { numberOfKeys: 4, lua: luaScript('adapters/shared-map/lua/map-changes') },
    });
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
