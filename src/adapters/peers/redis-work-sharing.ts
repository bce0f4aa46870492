/** Work sharing in the frontier's Redis: a zset instance id → hungry until (epoch ms, the daemons'
 *  clocks); a mark lapses by itself, so a daemon that dies hungry stops counting. */
import type { WorkSharing } from '../../ports/work-sharing.js';
import { execAll, type RedisLike, redisCall } from '../redis/redis-client.js';

export class RedisWorkSharing implements WorkSharing {
  readonly #key: string;

  readonly #client: RedisLike;
  readonly #instanceId: string;

  constructor(client: RedisLike, keyPrefix: string, instanceId: string) {
    this.#client = client;
    this.#instanceId = instanceId;
    this.#key = `{${keyPrefix}}:hungry`;
  }

  async hungry(now: number, untilMs: number): Promise<void> {
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
    // Two: one may be this daemon's own.
    const marks = await redisCall(() =>
      this.#client.zrangebyscore(this.#key, `(${now}`, '+inf', 'LIMIT', 0, 2),
    );
    return marks.some((id) => id !== this.#instanceId);
  }
}
