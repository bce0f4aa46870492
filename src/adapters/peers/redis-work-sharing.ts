/**
 * Work sharing (ports/work-sharing.ts) in the frontier's Redis: one sorted set
 * `{PREFIX}:hungry`, daemon instance id → the epoch ms until which it is hungry. A mark
 * lapses by itself (a daemon that dies hungry stops counting at its mark's time); marking
 * also drops the lapsed marks, so the set holds about one entry per daemon. Times are the
 * daemons' clocks, as for leases: daemons whose clocks differ by a second or more see each
 * other's hunger that much shorter or longer.
 */
import type { WorkSharing } from '../../ports/work-sharing.js';
import { execAll, type RedisLike, redisCall } from '../redis/redis-client.js';

export class RedisWorkSharing implements WorkSharing {
  readonly #key: string;

  readonly #client: RedisLike;
  readonly #instanceId: string;

  constructor(client: RedisLike, keyPrefix: string, instanceId: string) {
    this.#client = client;
    this.#instanceId = instanceId;
    // The frontier's global tag: one slot on a Cluster, beside its sequence and layout keys.
    this.#key = `{${keyPrefix}}:hungry`;
  }

  async hungry(now: number, untilMs: number): Promise<void> {
    // Lapsed marks (fed or dead daemons) go first: the set holds about one entry per daemon.
    // Both on the one key: one slot on a Cluster, one round trip.
    await redisCall(() =>
      execAll(
        this.#client
          .multi()
          .zremrangebyscore(this.#key, '-inf', now)
          .zadd(this.#key, untilMs, this.#instanceId),
      ),
    );
  }

  async fed(): Promise<void> {
    await redisCall(() => this.#client.zrem(this.#key, this.#instanceId));
  }

  async othersHungry(now: number): Promise<boolean> {
    // Two at most: one of them may be this daemon's own mark.
    const marks = await redisCall(() =>
      this.#client.zrangebyscore(this.#key, `(${now}`, '+inf', 'LIMIT', 0, 2),
    );
    return marks.some((id) => id !== this.#instanceId);
  }
}
