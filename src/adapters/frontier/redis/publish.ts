/**
 * Publishing of host snapshots to the index (Cluster), coalesced over one event-loop turn: only
 * a host's newest is sent (PUBLISH ignores older ones), since a daemon's workers ack together.
 */
import type { Clock } from '../../../core/clock.js';
import { batch, execAll, type RedisLike } from '../../redis/redis-client.js';
import { notOpenError } from '../frontier-common.js';
import type { RedisKeys } from './keys.js';
import { publish } from './read.js';
import { type Snapshot, snapshotVersion } from './replies.js';

/** Pause before publishing again snapshots whose publish failed (Redis or a shard down). */
const REPUBLISH_AFTER_MS = 1_000;

export class SnapshotPublisher {
  /** Snapshots for the next publish (newest per host) and the calls waiting for it. */
  #toPublish = new Map<string, Snapshot>();
  #waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  /** Timer of the next attempt at snapshots whose publish failed. */
  #republish: { cancel(): void } | undefined;
  readonly #conn: () => RedisLike | undefined;
  readonly #keys: RedisKeys;
  readonly #clock: Clock;

  /** conn: the open client, undefined once closed. */
  constructor(conn: () => RedisLike | undefined, keys: RedisKeys, clock: Clock) {
    this.#conn = conn;
    this.#keys = keys;
    this.#clock = clock;
  }

  /** Resolves when a publish that covers these snapshots is applied. */
  publish(all: readonly (readonly [string, Snapshot])[]): Promise<void> {
    const snaps = all.filter(([, snap]) => snap.length > 0);
    if (snaps.length === 0) return Promise.resolve();
    for (const [host, snap] of snaps) {
      const queued = this.#toPublish.get(host);
      if (queued === undefined || snapshotVersion(snap) >= snapshotVersion(queued))
        this.#toPublish.set(host, snap);
    }
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
      if (this.#waiters.length === 1) setImmediate(() => this.#flush());
    });
  }

  /** Unpublished snapshots are left to repair() at the next open(). */
  stop(): void {
    this.#republish?.cancel();
    this.#republish = undefined;
  }

  #flush(): void {
    const snaps = this.#toPublish;
    const waiters = this.#waiters;
    this.#toPublish = new Map();
    this.#waiters = [];
    const settle = (err?: unknown) => {
      for (const w of waiters) err === undefined ? w.resolve() : w.reject(err);
    };
    const client = this.#conn();
    if (!client) {
      settle(notOpenError());
      return;
    }
    const pipe = batch(client);
    publish(pipe, this.#keys, snaps);
    execAll(pipe).then(
      () => settle(),
      () => {
        // The host's state is applied, only the index lags: failing the caller would retry an
        // ack whose token is spent, never publishing (--once would wait forever). Retry instead.
        this.#requeue(snaps);
        settle();
      },
    );
  }

  #requeue(snaps: ReadonlyMap<string, Snapshot>): void {
    for (const [host, snap] of snaps) {
      const queued = this.#toPublish.get(host);
      if (queued === undefined || snapshotVersion(queued) < snapshotVersion(snap))
        this.#toPublish.set(host, snap);
    }
    this.#republish ??= this.#clock.setTimer(() => {
      this.#republish = undefined;
      // A flush already scheduled (waiters queued) takes the requeued snapshots along.
      if (this.#conn() && this.#toPublish.size > 0 && this.#waiters.length === 0) this.#flush();
    }, REPUBLISH_AFTER_MS);
  }
}
