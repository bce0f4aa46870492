/**
 * Frontier on Redis, shared by several daemons. One Redis: each call is one script that keeps
 * the index by deltas, atomically. Cluster: one script per host on its slot, then a versioned
 * PUBLISH of its snapshot to its index bucket. Layout, costs, deviations: docs/redis.md.
 */
import { Cluster } from 'ioredis';
import type { Clock } from '../../../core/clock.js';
import { InvalidArgumentError } from '../../../core/errors.js';
import type {
  AckOptions,
  DeadLetter,
  EnqueueRequest,
  EnqueueResult,
  Frontier,
  FrontierStats,
  LeaseOptions,
  RetryOptions,
  Task,
} from '../../../ports/frontier.js';
import {
  createRedisClient,
  mapRedisError,
  type RedisLike,
  redisCall,
  type ScriptArg,
} from '../../redis/redis-client.js';
import {
  checkLeaseOptions,
  checkMaxPending,
  notOpenError,
  type PreparedRequest,
} from '../frontier-common.js';
import { SeenCache } from '../seen-cache.js';
import { HostOpBatcher, SeqBatcher } from './batch.js';
import { CLUSTER_INDEX_BUCKETS, RedisKeys, splitTaskId } from './keys.js';
import { checkLayout } from './layout.js';
import { type LeaseContext, leaseTasks } from './lease.js';
import { SnapshotPublisher } from './publish.js';
import { readDead, readLeased, readNextReadyAt, readStats, repairIndexes, repairSingle } from './read.js';
import {
  checkPriorities,
  checkSeq,
  enqueuePrepared,
  redriveIds,
  type WriteContext,
} from './redis-enqueue.js';
import { REPLY, snapshotOf } from './replies.js';
import { defineFrontierScripts } from './scripts.js';

/** The host operations on a leased task (the task's token checked in the script). */
type LeasedOp = 'ack' | 'retry' | 'dead' | 'extend';

export interface RedisFrontierOptions {
  /** redis://[:password@]host:port[/db]. The adapter creates the client and quits it on close(). */
  url?: string;
  /** Or the "host:port" start-up nodes of a Redis Cluster; the adapter creates the ioredis Cluster. */
  nodes?: readonly string[];
  /** Or a client the caller owns (close() leaves it connected). Exactly one of url / nodes / client. */
  client?: RedisLike;
  clock: Clock;
  /** Bound on pending tasks across all daemons sharing the prefix; unbounded when omitted. */
  maxPending?: number;
  /** Namespace of every key: several frontiers can share one Redis. @default 'crawld' */
  keyPrefix?: string;
  /** Called with each connection error of a client the adapter created (for logging). */
  onConnectionError?: (err: unknown) => void;
  /** Ready hosts lease() reads from the index per call (excluded hosts count). @default 1000 */
  leaseScanHosts?: number;
}

export class RedisFrontier implements Frontier {
  readonly #options: RedisFrontierOptions;
  readonly #clock: Clock;
  readonly #keys: RedisKeys;
  readonly #cluster: boolean;
  readonly #seen = new SeenCache();
  readonly #scanHosts: number;
  readonly #ops: HostOpBatcher;
  readonly #seqs: SeqBatcher;
  readonly #publisher: SnapshotPublisher;
  readonly #leaseContext: LeaseContext;
  readonly #write: WriteContext;
  #client: RedisLike | undefined;

  constructor(options: RedisFrontierOptions) {
    if ([options.url, options.nodes, options.client].filter((o) => o !== undefined).length !== 1)
      throw new InvalidArgumentError('RedisFrontier needs exactly one of url, nodes and client');
    this.#options = options;
    this.#clock = options.clock;
    const maxPending = checkMaxPending(options.maxPending);
    this.#cluster = options.nodes !== undefined || options.client instanceof Cluster;
    this.#keys = new RedisKeys(options.keyPrefix ?? 'crawld', this.#cluster ? CLUSTER_INDEX_BUCKETS : 1);
    this.#scanHosts = options.leaseScanHosts ?? 1000;
    const conn = () => this.#conn();
    this.#ops = new HostOpBatcher(conn, this.#keys, this.#cluster);
    this.#seqs = new SeqBatcher(conn, this.#keys.seq);
    this.#publisher = new SnapshotPublisher(() => this.#client, this.#keys, this.#clock);
    const publish = this.#publisher.publish.bind(this.#publisher);
    this.#write = { single: !this.#cluster, keys: this.#keys, ops: this.#ops, maxPending, publish };
    const self = this;
    this.#leaseContext = {
      get client() {
        return self.#conn();
      },
      keys: this.#keys,
      call: (host, op, args) => this.#ops.call(host, op, args),
      publish,
      single: !this.#cluster,
    };
  }

  async open(): Promise<void> {
    if (this.#client) return;
    const owned = this.#options.client === undefined;
    const client = this.#options.client ?? createRedisClient(this.#options);
    // Errors surface on the commands; without a listener ioredis prints each reconnect failure.
    if (owned) client.on('error', (err: unknown) => this.#options.onConnectionError?.(err));
    try {
      if (client.status === 'wait') await client.connect();
      defineFrontierScripts(client);
      await checkLayout(client, this.#keys, this.#options.keyPrefix ?? 'crawld', !this.#cluster);
      // Only a Cluster can crash between a host script and its publish.
      if (this.#cluster) await repairIndexes(client, this.#keys);
    } catch (err) {
      if (!this.#options.client) client.disconnect();
      throw mapRedisError(err);
    }
    // A restarted Redis may have lost its data: the cached URLs must be enqueued again.
    client.on('ready', this.#forgetSeen);
    this.#client = client;
  }

  readonly #forgetSeen = (): void => this.#seen.clear();

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    // Unpublished snapshots are left to repair() at the next open().
    this.#publisher.stop();
    client?.off('ready', this.#forgetSeen);
    if (client && !this.#options.client) await client.quit().catch(() => client.disconnect());
  }

  /** Rebuilds the global indexes and totals from the per-host state; returns the hosts visited. */
  repair(): Promise<number> {
    return this.#run((c) =>
      this.#cluster
        ? repairIndexes(c, this.#keys)
        : repairSingle(c, this.#keys, this.#options.keyPrefix ?? 'crawld'),
    );
  }

  async enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult> {
    const c = this.#conn();
    const now = this.#clock.now();
    // Links found again (most of every page's) are answered from the cache.
    const store = (fresh: readonly PreparedRequest[]) =>
      this.#run(() => enqueuePrepared(this.#write, c, fresh, now));
    return this.#seen.enqueue(requests, now, store, checkPriorities);
  }

  async lease(options: LeaseOptions): Promise<Task[]> {
    this.#conn();
    checkLeaseOptions(options);
    if (options.max === 0) return [];
    return this.#run(() => leaseTasks(this.#leaseContext, this.#clock.now(), options, this.#scanHosts));
  }

  async ack(task: Task, options?: AckOptions): Promise<boolean> {
    const recrawl = options?.recrawlAt;
    return this.#onLeased(task, recrawl !== undefined, (now, seq) => ['ack', [now, recrawl ?? '', seq]]);
  }

  async retry(task: Task, options: RetryOptions): Promise<boolean> {
    return this.#onLeased(task, true, (now, seq) => [
      'retry',
      [now, options.at, options.reason, options.chargeAttempt ? 1 : 0, seq],
    ]);
  }

  async deadLetter(task: Task, reason: string): Promise<boolean> {
    return this.#onLeased(task, false, (now) => ['dead', [now, reason]]);
  }

  async extend(task: Task, leaseMs: number): Promise<boolean> {
    return this.#onLeased(task, false, (now) => ['extend', [now, now + leaseMs]]);
  }

  async stats(): Promise<FrontierStats> {
    const c = this.#conn();
    return this.#run(() => readStats(c, this.#keys, this.#clock.now()));
  }

  async nextReadyAt(): Promise<number | undefined> {
    const c = this.#conn();
    return this.#run(() => readNextReadyAt(c, this.#keys, this.#clock.now(), !this.#cluster));
  }

  async listLeased(options?: { owner?: string }): Promise<Task[]> {
    const c = this.#conn();
    return this.#run(() => readLeased(c, this.#keys, !this.#cluster, options?.owner ?? ''));
  }

  async listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]> {
    const c = this.#conn();
    return this.#run(() => readDead(c, this.#keys, options));
  }

  async redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number> {
    const c = this.#conn();
    return this.#run(async () => {
      // Without ids: every dead task in dead order, so FIFO seqs follow that order.
      const ids = options?.ids ?? (await readDead(c, this.#keys, { jobId: options?.jobId })).map((d) => d.id);
      return redriveIds(this.#write, c, ids, options?.jobId ?? '', this.#clock.now());
    });
  }

  /** ack / retry / deadLetter: one host operation, batched per turn (batch.ts): 100 acks, one call. */
  async #onLeased(
    task: Task,
    needsSeq: boolean,
    call: (now: number, seq: number) => [LeasedOp, ScriptArg[]],
  ): Promise<boolean> {
    this.#conn();
    const parts = splitTaskId(task.id);
    if (!parts) return false;
    return this.#run(async () => {
      const seq = needsSeq ? checkSeq(await this.#seqs.take(1)) : 0;
      const now = this.#clock.now();
      const [op, rest] = call(now, seq);
      const [first, ...tail] = rest;
      const reply = await this.#ops.call(parts.host, op, [first!, parts.suffix, task.leaseToken, ...tail]);
      if (Number(reply[REPLY[op].done]) === 0) return false;
      await this.#publisher.publish([[parts.host, snapshotOf(op, reply)]]);
      return true;
    });
  }

  #conn(): RedisLike {
    if (!this.#client) throw notOpenError();
    return this.#client;
  }

  #run<T>(fn: (c: RedisLike) => Promise<T>): Promise<T> {
    return redisCall(() => fn(this.#conn()));
  }
}
