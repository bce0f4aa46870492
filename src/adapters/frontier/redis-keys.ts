/**
 * Key layout of the Redis frontier, designed for Redis Cluster: everything about one host
 * shares the hash tag `{host}` (one slot), so every per-host Lua script touches one slot;
 * the few global structures share the tag `{prefix}` (another single slot). No script ever
 * touches both. docs/redis.md explains the layout and what it costs.
 */
import { InvalidArgumentError } from '../../core/errors.js';

/** The per-host keys, in the order every host script receives them as KEYS[1..6]. */
export interface HostKeys {
  /** HASH task suffix → msgpack record (url, job, priority, state, seq, lease, ...). Also the dedupe set. */
  readonly tasks: string;
  /** ZSET ready task suffixes, score = (priority + 2048) × 2^41 + seq. */
  readonly ready: string;
  /** ZSET delayed task suffixes, score = notBefore. */
  readonly delayed: string;
  /** ZSET leased task suffixes, score = lease expiry (the visibility timeout). */
  readonly leased: string;
  /** ZSET dead task suffixes, score = deadAt. */
  readonly dead: string;
  /** HASH v (version of the host's state), done (count), p:<priority> (pending count). */
  readonly meta: string;
}

export interface GlobalKeys {
  /** STRING the global FIFO sequence (INCRBY). */
  readonly seq: string;
  /** SET of every host ever enqueued (add-only; the source for repair()). */
  readonly hosts: string;
  /** ZSET host → score of its best ready task: the index lease() reads. */
  readonly ready: string;
  /** ZSET host → earliest delayed notBefore or lease expiry. */
  readonly due: string;
  /** HASH host → msgpack snapshot {v, counts} last published for it. */
  readonly snap: string;
  /** HASH n (pending), l (leased), f (done), x (dead), p:<priority>: sums of the snapshots. */
  readonly totals: string;
  readonly deadHosts: string;
  readonly leasedHosts: string;
}

export class RedisKeys {
  readonly global: GlobalKeys;
  readonly #prefix: string;

  constructor(prefix: string) {
    if (prefix === '' || /[{}]/.test(prefix)) {
      throw new InvalidArgumentError(`keyPrefix must be non-empty and free of braces, got ${prefix}`);
    }
    this.#prefix = prefix;
    const g = `{${prefix}}`;
    this.global = {
      seq: `${g}:seq`,
      hosts: `${g}:hosts`,
      ready: `${g}:ready`,
      due: `${g}:due`,
      snap: `${g}:snap`,
      totals: `${g}:totals`,
      deadHosts: `${g}:deadhosts`,
      leasedHosts: `${g}:leasedhosts`,
    };
  }

  /** URL.host never contains braces, so `{host}` is always exactly the hash tag. */
  host(host: string): HostKeys {
    const h = `${this.#prefix}:{${host}}`;
    return {
      tasks: `${h}:t`,
      ready: `${h}:r`,
      delayed: `${h}:d`,
      leased: `${h}:l`,
      dead: `${h}:x`,
      meta: `${h}:m`,
    };
  }

  hostList(host: string): string[] {
    const k = this.host(host);
    return [k.tasks, k.ready, k.delayed, k.leased, k.dead, k.meta];
  }

  globalPublishList(): string[] {
    const g = this.global;
    return [g.snap, g.totals, g.ready, g.due, g.deadHosts, g.leasedHosts];
  }
}

/** Task id = `${host}|${suffix}`: the host routes a call to its slot without a lookup. */
export function taskId(host: string, suffix: string): string {
  return `${host}|${suffix}`;
}

export function splitTaskId(id: string): { host: string; suffix: string } | undefined {
  const at = id.lastIndexOf('|');
  if (at <= 0 || at === id.length - 1) return undefined;
  return { host: id.slice(0, at), suffix: id.slice(at + 1) };
}

/** Priority and seq share one exact double: 12 bits of priority, 41 bits of sequence. */
export const PRIORITY_MIN = -2048;
export const PRIORITY_MAX = 2047;
export const SEQ_LIMIT = 2 ** 41;
