/**
 * Frontier on Redis, shared by several daemons. Each host's queues live under the hash tag
 * `{host}` and every change to a host is one Lua script on that slot (atomic); a second
 * script on the global slot publishes the host's new counts and index scores (versioned,
 * so out-of-order publishes converge). Layout, costs and failure behaviour: docs/redis.md.
 *
 * Deviations from the single-store adapters, all documented there: an enqueue batch is
 * atomic per host, not as a whole; maxPending is checked against a global counter read
 * before the batch (approximate under concurrent enqueues); priorities must lie in
 * [-2048, 2047].
 */
import { createHash } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import type { Clock } from '../../core/clock.js';
import { InvalidArgumentError } from '../../core/errors.js';
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
} from '../../ports/frontier.js';
import { checkLeaseOptions, checkMaxPending, notOpenError, type PreparedRequest } from './common.js';
import { HostOpBatcher, SeqBatcher } from './redis-batch.js';
import {
  batch,
  clientOptions,
  clusterOptions,
  defineFrontierScripts,
  execAll,
  mapRedisError,
  parseNode,
  type RedisLike,
  type ScriptArg,
  script,
} from './redis-client.js';
import { lastSnapshot, packUrl, type Snapshot } from './redis-codec.js';
import {
  CLUSTER_INDEX_BUCKETS,
  PRIORITY_MAX,
  PRIORITY_MIN,
  RedisKeys,
  SEQ_LIMIT,
  splitTaskId,
} from './redis-keys.js';
import { checkLayout } from './redis-layout.js';
import { type LeaseContext, leaseTasks } from './redis-lease.js';
import type { BatchOp } from './redis-lua.js';
import { publish, readDead, readLeased, readNextReadyAt, readStats, repairIndexes } from './redis-read.js';
import { SeenCache } from './seen-cache.js';

/** Pause before publishing again snapshots whose publish failed (Redis or a shard down). */
const REPUBLISH_AFTER_MS = 1_000;

export interface RedisFrontierOptions {
  /** redis://[:password@]host:port[/db]. The adapter creates the client and quits it on close(). */
  url?: string;
  /** Or the "host:port" start-up nodes of a Redis Cluster; the adapter creates the ioredis Cluster. */
  nodes?: readonly string[];
  /**
   * Or an ioredis client (Redis or Cluster) owned by the caller (close() leaves it
   * connected). Exactly one of url / nodes / client.
   */
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
  readonly #maxPending: number;
  readonly #keys: RedisKeys;
  readonly #seen = new SeenCache();
  /** Snapshots for the next publish (newest per host) and the calls waiting for it. */
  #toPublish = new Map<string, Snapshot>();
  #publishWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Timer of the next attempt at snapshots whose publish failed. */
  #republish: { cancel(): void } | undefined;
  readonly #scanHosts: number;
  readonly #ops: HostOpBatcher;
  readonly #seqs: SeqBatcher;
  readonly #leaseContext: LeaseContext;
  #client: RedisLike | undefined;

  constructor(options: RedisFrontierOptions) {
    if ([options.url, options.nodes, options.client].filter((o) => o !== undefined).length !== 1)
      throw new InvalidArgumentError('RedisFrontier needs exactly one of url, nodes and client');
    this.#options = options;
    this.#clock = options.clock;
    this.#maxPending = checkMaxPending(options.maxPending);
    const cluster = options.nodes !== undefined || options.client instanceof Cluster;
    this.#keys = new RedisKeys(options.keyPrefix ?? 'crawld', cluster ? CLUSTER_INDEX_BUCKETS : 1);
    this.#scanHosts = options.leaseScanHosts ?? 1000;
    const conn = () => this.#conn();
    this.#ops = new HostOpBatcher(conn, this.#keys, cluster);
    this.#seqs = new SeqBatcher(conn, this.#keys.seq);
    const self = this;
    this.#leaseContext = {
      get client() {
        return self.#conn();
      },
      keys: this.#keys,
      call: (host, op, args) => this.#ops.call(host, op, args),
      publish: (snaps) => this.#publishAll(snaps),
    };
  }

  async open(): Promise<void> {
    if (this.#client) return;
    const owned = this.#options.client === undefined;
    const client = this.#options.client ?? this.#newClient();
    // Connection errors surface on the commands (RedisUnavailableError); without a
    // listener ioredis would also print each reconnect failure as an unhandled event.
    if (owned) client.on('error', (err: unknown) => this.#options.onConnectionError?.(err));
    try {
      if (client.status === 'wait') await client.connect();
      defineFrontierScripts(client);
      await checkLayout(client, this.#keys, this.#options.keyPrefix ?? 'crawld');
      await repairIndexes(client, this.#keys);
    } catch (err) {
      if (!this.#options.client) client.disconnect();
      throw mapRedisError(err);
    }
    // A Redis that restarted may have come back without its data (no persistence): then the
    // URLs the cache holds are not stored any more, and must be enqueued again when found.
    client.on('ready', this.#forgetSeen);
    this.#client = client;
  }

  #newClient(): RedisLike {
    const { url, nodes } = this.#options;
    return nodes ? new Cluster(nodes.map(parseNode), clusterOptions) : new Redis(url!, clientOptions);
  }

  readonly #forgetSeen = (): void => this.#seen.clear();

  async close(): Promise<void> {
    const client = this.#client;
    this.#client = undefined;
    // Unpublished snapshots are left to repair() at the next open().
    this.#republish?.cancel();
    this.#republish = undefined;
    client?.off('ready', this.#forgetSeen);
    if (client && !this.#options.client) await client.quit().catch(() => client.disconnect());
  }

  /** Rebuilds the global indexes and totals from the per-host state; returns the hosts visited. */
  repair(): Promise<number> {
    return this.#run((c) => repairIndexes(c, this.#keys));
  }

  async enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult> {
    const c = this.#conn();
    const now = this.#clock.now();
    // Links found again (most of every page's) are answered from the cache, without the three
    // round trips and the script an enqueue costs.
    return this.#seen.enqueue(requests, now, (fresh) => this.#enqueue(c, fresh, now), checkPriorities);
  }

  #enqueue(c: RedisLike, prepared: readonly PreparedRequest[], now: number): Promise<EnqueueResult> {
    return this.#run(async () => {
      const byHost = groupByHost(prepared);
      const keys = this.#keys;
      const head = batch(c).incrby(keys.seq, prepared.length);
      for (const b of keys.buckets) head.hget(b.totals, 'n');
      const hostSets = new Map<string, string[]>();
      for (const host of byHost.keys()) {
        const set = keys.index(host).hosts;
        const list = hostSets.get(set);
        if (list) list.push(host);
        else hostSets.set(set, [host]);
      }
      for (const [set, hosts] of hostSets) head.sadd(set, ...hosts);
      const [end, ...rest] = await execAll(head);
      const pending = rest.slice(0, keys.buckets.length).reduce((n: number, v) => n + Number(v ?? 0), 0);
      let seq = this.#checkSeq(Number(end)) - prepared.length + 1;
      const argsOf = new Map<string, ScriptArg[]>();
      for (const [host, rs] of byHost) {
        argsOf.set(
          host,
          rs.flatMap((r) => [
            hashOf(r),
            packUrl(r.url, host),
            r.jobId,
            r.priority,
            r.depth,
            r.notBefore,
            r.force ? 1 : 0,
            seq++,
            r.requestUrl === undefined ? '' : packUrl(r.requestUrl, host),
          ]),
        );
      }
      let room = this.#maxPending - pending;
      const replies = new Map<string, unknown[]>();
      if (room >= prepared.length) {
        // Nothing can be dropped: every host in one round trip (one script call on one Redis).
        const out = await Promise.all(
          [...argsOf].map(([host, args]) => this.#ops.call(host, 'enqueue', [now, prepared.length, ...args])),
        );
        for (const [i, host] of [...argsOf.keys()].entries()) replies.set(host, out[i]!);
      } else {
        // Near the bound: host by host, each told the room the previous ones left.
        for (const [host, args] of argsOf) {
          const reply = await this.#ops.call(host, 'enqueue', [now, Math.max(0, room), ...args]);
          room -= Number(reply[0]);
          replies.set(host, reply);
        }
      }
      await this.#publishAll([...replies].map(([host, reply]) => [host, lastSnapshot(reply)]));
      const sum = (i: number) => [...replies.values()].reduce((n, r) => n + Number(r[i]), 0);
      return { added: sum(0), duplicates: sum(1), dropped: sum(2) };
    });
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

  async stats(): Promise<FrontierStats> {
    const c = this.#conn();
    return this.#run(() => readStats(c, this.#keys, this.#clock.now()));
  }

  async nextReadyAt(): Promise<number | undefined> {
    const c = this.#conn();
    return this.#run(() => readNextReadyAt(c, this.#keys, this.#clock.now()));
  }

  async listLeased(): Promise<Task[]> {
    const c = this.#conn();
    return this.#run(() => readLeased(c, this.#keys));
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
      const byHost = new Map<string, string[]>();
      for (const id of ids) {
        const parts = splitTaskId(id);
        if (!parts) continue;
        const list = byHost.get(parts.host);
        if (list) list.push(parts.suffix);
        else byHost.set(parts.host, [parts.suffix]);
      }
      if (byHost.size === 0) return 0;
      const total = [...byHost.values()].reduce((n, s) => n + s.length, 0);
      let seq = this.#checkSeq(await c.incrby(this.#keys.seq, total)) - total + 1;
      const now = this.#clock.now();
      const pipe = batch(c);
      for (const [host, suffixes] of byHost) {
        const args = suffixes.flatMap((s) => [s, seq++]);
        script(pipe, 'crawldRedrive', this.#keys.hostList(host), [now, options?.jobId ?? '', ...args]);
      }
      const out = (await execAll(pipe)) as unknown[][];
      await this.#publishAll([...byHost.keys()].map((host, i) => [host, lastSnapshot(out[i])] as const));
      return out.reduce((n, r) => n + Number(r[0]), 0);
    });
  }

  /**
   * ack / retry / deadLetter: one host operation on the task's slot, then its publish. The
   * operations (and sequence numbers) of one turn go together (redis-batch.ts): a daemon's
   * workers finish together, and 100 acks cost one script call, not 100.
   */
  async #onLeased(
    task: Task,
    needsSeq: boolean,
    call: (now: number, seq: number) => [BatchOp, ScriptArg[]],
  ): Promise<boolean> {
    this.#conn();
    const parts = splitTaskId(task.id);
    if (!parts) return false;
    return this.#run(async () => {
      const seq = needsSeq ? this.#checkSeq(await this.#seqs.take(1)) : 0;
      const now = this.#clock.now();
      const [op, rest] = call(now, seq);
      const [first, ...tail] = rest;
      const args = [first!, parts.suffix, task.leaseToken, ...tail];
      const reply = await this.#ops.call(parts.host, op, args);
      if (Number(reply[0]) === 0) return false;
      await this.#publishAll([[parts.host, lastSnapshot(reply)]]);
      return true;
    });
  }

  /**
   * Publishes host snapshots, coalesced over one turn of the event loop: of the snapshots of a
   * host queued in a turn only the newest (highest version) is sent, since PUBLISH ignores one
   * older than what it applied and totals move by the difference between applied snapshots.
   * A daemon's workers ack together, and one PUBLISH per ack was a round trip and a script
   * each. Resolves when a publish that covers these snapshots is applied.
   */
  #publishAll(all: readonly (readonly [string, Snapshot])[]): Promise<void> {
    // Empty snapshots: the BATCH script applied them itself (one Redis).
    const snaps = all.filter(([, snap]) => snap.length > 0);
    if (snaps.length === 0) return Promise.resolve();
    for (const [host, snap] of snaps) {
      const queued = this.#toPublish.get(host);
      if (queued === undefined || Number(snap[0]) >= Number(queued[0])) this.#toPublish.set(host, snap);
    }
    return new Promise((resolve, reject) => {
      this.#publishWaiters.push({ resolve, reject });
      if (this.#publishWaiters.length === 1) setImmediate(() => this.#flushPublishes());
    });
  }

  #flushPublishes(): void {
    const snaps = this.#toPublish;
    const waiters = this.#publishWaiters;
    this.#toPublish = new Map();
    this.#publishWaiters = [];
    const settle = (err?: unknown) => {
      for (const w of waiters) err === undefined ? w.resolve() : w.reject(err);
    };
    try {
      const pipe = batch(this.#conn());
      publish(pipe, this.#keys, snaps);
      execAll(pipe).then(
        () => settle(),
        () => {
          // The host scripts are applied (the host's state is the truth); only the global
          // view lags. Failing the caller would make it retry an ack whose token is spent
          // (answered false) and the snapshot would never be published: the totals would
          // keep the task leased, and --once would wait forever. So the snapshots stay
          // queued (a newer one of a host wins) and are published again until it works.
          this.#requeue(snaps);
          settle();
        },
      );
    } catch (err) {
      settle(err);
    }
  }

  #requeue(snaps: ReadonlyMap<string, Snapshot>): void {
    for (const [host, snap] of snaps) {
      const queued = this.#toPublish.get(host);
      if (queued === undefined || Number(queued[0]) < Number(snap[0])) this.#toPublish.set(host, snap);
    }
    this.#republish ??= this.#clock.setTimer(() => {
      this.#republish = undefined;
      // A flush already scheduled (waiters queued) takes the requeued snapshots along.
      if (this.#client && this.#toPublish.size > 0 && this.#publishWaiters.length === 0)
        this.#flushPublishes();
    }, REPUBLISH_AFTER_MS);
  }

  #checkSeq(end: number): number {
    if (end >= SEQ_LIMIT) throw new InvalidArgumentError(`frontier sequence exhausted (${end} >= 2^41)`);
    return end;
  }

  #conn(): RedisLike {
    if (!this.#client) throw notOpenError();
    return this.#client;
  }

  async #run<T>(fn: (c: RedisLike) => Promise<T>): Promise<T> {
    try {
      return await fn(this.#conn());
    } catch (err) {
      throw mapRedisError(err);
    }
  }
}

function checkPriorities(prepared: readonly PreparedRequest[]): void {
  for (const r of prepared) {
    if (r.priority < PRIORITY_MIN || r.priority > PRIORITY_MAX)
      throw new InvalidArgumentError(
        `priority must be in [${PRIORITY_MIN}, ${PRIORITY_MAX}], got ${r.priority}`,
      );
  }
}

function groupByHost(prepared: readonly PreparedRequest[]): Map<string, PreparedRequest[]> {
  const byHost = new Map<string, PreparedRequest[]>();
  for (const r of prepared) {
    const list = byHost.get(r.host);
    if (list) list.push(r);
    else byHost.set(r.host, [r]);
  }
  return byHost;
}

/**
 * 64 bits of SHA-1 over (job, url) in base64url: 11 characters (a 16-byte allocation in Redis
 * where 16 hex digits took 24, once in the task hash and once per queue entry). Collisions are
 * resolved by probing in Lua.
 */
function hashOf(r: PreparedRequest): string {
  return createHash('sha1').update(`${r.jobId}\n${r.url}`).digest().subarray(0, 8).toString('base64url');
}
