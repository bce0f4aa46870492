/**
 * Key layout of the Redis frontier: a host's keys share the hash tag `{host}`, each index bucket
 * its own tag, so no script touches two slots on a Cluster (docs/redis.md).
 */
import { InvalidArgumentError } from '../../../core/errors.js';

/** The per-host keys, in KEYS[1..6] order. */
export interface HostKeys {
  /** HASH task suffix → packed record; bucket 0 of the host's task hash (buckets b > 0: this key + b, lua/prelude.lua). Also the dedupe set. */
  readonly tasks: string;
  /** ZSET ready task suffixes, score = (priority + 2048) × 2^41 + seq. */
  readonly ready: string;
  /** ZSET delayed task suffixes, score = notBefore. */
  readonly delayed: string;
  /** ZSET leased task suffixes, score = lease expiry (the visibility timeout). */
  readonly leased: string;
  /** ZSET dead task suffixes, score = deadAt. */
  readonly dead: string;
  /** HASH v (version of the host's state), done, x (dead) and dl (delayed) counts, p:<priority> (pending count). */
  readonly meta: string;
}

/** The global index, one copy per bucket. */
export interface IndexKeys {
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

/** On Redis Cluster the index is split over this many buckets (hash tags), spread over the shards. */
export const CLUSTER_INDEX_BUCKETS = 16;

export class RedisKeys {
  /** STRING the global FIFO sequence (INCRBY), tag `{prefix}`. */
  readonly seq: string;
  /** STRING the version of the data layout (layout.ts), tag `{prefix}`. */
  readonly layout: string;
  /** One bucket (`{prefix}`) on a single Redis; CLUSTER_INDEX_BUCKETS (`{prefix:i}`) on a Cluster,
   *  spread over the shards. Fixed by the kind, never configured: every daemon must agree. */
  readonly buckets: readonly IndexKeys[];
  /** ZSET host|suffix|token → lease expiry, single Redis only (a Cluster keeps them per host). */
  readonly leases: string;
  /** HASH host → task hash bucket count when > 1 (copy of meta `tb`), single Redis: one HMGET per call. */
  readonly taskBuckets: string;
  readonly prefix: string;

  constructor(prefix: string, buckets = 1) {
    if (prefix === '' || /[{}]/.test(prefix)) {
      throw new InvalidArgumentError(`keyPrefix must be non-empty and free of braces, got ${prefix}`);
    }
    if (!Number.isInteger(buckets) || buckets < 1)
      throw new InvalidArgumentError(`index buckets must be a positive integer, got ${buckets}`);
    this.prefix = prefix;
    this.seq = `{${prefix}}:seq`;
    this.layout = `{${prefix}}:layout`;
    this.leases = `{${prefix}}:leases`;
    this.taskBuckets = `{${prefix}}:tb`;
    this.buckets = Array.from({ length: buckets }, (_, i) => {
      const g = buckets === 1 ? `{${prefix}}` : `{${prefix}:${i}}`;
      return {
        hosts: `${g}:hosts`,
        ready: `${g}:ready`,
        due: `${g}:due`,
        snap: `${g}:snap`,
        totals: `${g}:totals`,
        deadHosts: `${g}:deadhosts`,
        leasedHosts: `${g}:leasedhosts`,
      };
    });
  }

  /** The index bucket holding the host's entries: FNV-1a of the host, stable across daemons. */
  index(host: string): IndexKeys {
    const n = this.buckets.length;
    if (n === 1) return this.buckets[0]!;
    let h = 0x811c9dc5;
    for (let i = 0; i < host.length; i++) h = Math.imul(h ^ host.charCodeAt(i), 0x01000193);
    return this.buckets[(h >>> 0) % n]!;
  }

  /** URL.host has no braces: `{host}` is exactly the hash tag. */
  host(host: string): HostKeys {
    const h = `${this.prefix}:{${host}}`;
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

  /** Single Redis: the index keys BATCH, TAKE, ENQUEUE_MANY and REPAIR take: the bucket's six, then the lease zset. */
  singleList(): string[] {
    return [...bucketList(this.buckets[0]!), this.leases];
  }

  /** KEYS of the PUBLISH script for a host: its index bucket (one slot). */
  publishList(host: string): string[] {
    return bucketList(this.index(host));
  }
}

/** An index bucket's keys in the order the scripts take them (PUBLISH, BATCH, TAKE, ENQUEUE_MANY, REPAIR). */
export function bucketList(b: IndexKeys): string[] {
  return [b.snap, b.totals, b.ready, b.due, b.deadHosts, b.leasedHosts];
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

/** Priority (12 bits, ports/frontier.ts) and seq (41 bits) share one exact double. */
export const SEQ_LIMIT = 2 ** 41;
