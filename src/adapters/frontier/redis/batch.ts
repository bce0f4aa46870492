/**
 * The host operations of one event-loop turn (a daemon's workers finish together) sent as BATCH
 * calls (lua/batch.lua): one on one Redis, one per host on a Cluster; the turn's seqs from one INCRBY.
 */
import { batch, type RedisLike, type ScriptArg, script } from '../../redis/redis-client.js';
import type { RedisKeys } from './keys.js';
import { BATCH_ENTRY } from './replies.js';
import { BATCH_OPS, type BatchOp } from './scripts.js';

interface Call {
  readonly host: string;
  readonly op: BatchOp;
  readonly args: readonly ScriptArg[];
  readonly resolve: (reply: unknown[]) => void;
  readonly reject: (err: unknown) => void;
}

/** A script error of one operation, shaped like ioredis's so mapRedisError classifies it. */
class BatchReplyError extends Error {
  override readonly name = 'ReplyError';
}

/** Operations per BATCH call on one Redis: bounds one script's run time and its KEYS. */
const MAX_OPS_PER_CALL = 256;

export class HostOpBatcher {
  #queue: Call[] = [];
  readonly #conn: () => RedisLike;
  readonly #keys: RedisKeys;
  readonly #perHost: boolean;

  /** perHost: one call per host (Cluster); else calls of up to MAX_OPS_PER_CALL operations. */
  constructor(conn: () => RedisLike, keys: RedisKeys, perHost: boolean) {
    this.#conn = conn;
    this.#keys = keys;
    this.#perHost = perHost;
  }

  /** Runs a host operation with the others of this turn; resolves with its reply. */
  call(host: string, op: BatchOp, args: readonly ScriptArg[]): Promise<unknown[]> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ host, op, args, resolve, reject });
      if (this.#queue.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const calls = this.#queue;
    this.#queue = [];
    let groups: Call[][];
    if (this.#perHost) {
      const byHost = new Map<string, Call[]>();
      for (const c of calls) {
        const list = byHost.get(c.host);
        if (list) list.push(c);
        else byHost.set(c.host, [c]);
      }
      groups = [...byHost.values()];
    } else {
      groups = [];
      for (let i = 0; i < calls.length; i += MAX_OPS_PER_CALL)
        groups.push(calls.slice(i, i + MAX_OPS_PER_CALL));
    }
    let conn: RedisLike;
    try {
      conn = this.#conn();
    } catch (err) {
      for (const c of calls) c.reject(err);
      return;
    }
    // One key per operation (the host's task hash), then on one Redis the index keys.
    const inline = this.#perHost ? 0 : 1;
    const argsOf = (group: readonly Call[]): ScriptArg[] => {
      const keys: string[] = [];
      const args: ScriptArg[] = [inline];
      for (const c of group) {
        keys.push(this.#keys.host(c.host).tasks);
        args.push(BATCH_OPS[c.op], c.args.length, ...c.args);
      }
      if (inline) keys.push(...this.#keys.singleList());
      return [keys.length, ...keys, ...args];
    };
    // A turn's one call (the usual case on one Redis) goes as it is: a pipeline object costs
    // more to make than the call itself.
    let sent: Promise<[Error | null, unknown][] | null>;
    if (groups.length === 1) {
      sent = script(conn, 'crawldBatch', [], argsOf(groups[0]!)).then(
        (value) => [[null, value]],
        (err: Error) => [[err, undefined]],
      );
    } else {
      const pipe = batch(conn);
      for (const group of groups) script(pipe, 'crawldBatch', [], argsOf(group));
      sent = pipe.exec();
    }
    sent.then(
      (results) => {
        for (const [g, group] of groups.entries()) {
          const [err, value] = results?.[g] ?? [new Error('no reply for a batch call'), undefined];
          const entries = value as unknown[][] | undefined;
          for (const [k, c] of group.entries()) {
            const r = entries?.[k];
            if (err || !r) c.reject(err ?? new Error('no reply for a batched operation'));
            else if (Number(r[BATCH_ENTRY.ok]) === 1) c.resolve(r[BATCH_ENTRY.value] as unknown[]);
            else c.reject(new BatchReplyError(String(r[BATCH_ENTRY.value])));
          }
        }
      },
      (err: unknown) => {
        for (const c of calls) c.reject(err);
      },
    );
  }
}

/** FIFO sequence numbers for the calls of one turn, from one INCRBY on `{prefix}:seq`. */
export class SeqBatcher {
  #wanted: { n: number; resolve: (first: number) => void; reject: (err: unknown) => void }[] = [];
  readonly #conn: () => RedisLike;
  readonly #key: string;

  constructor(conn: () => RedisLike, key: string) {
    this.#conn = conn;
    this.#key = key;
  }

  /** Reserves n consecutive sequence numbers; resolves with the last one (like INCRBY). */
  take(n: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#wanted.push({ n, resolve, reject });
      if (this.#wanted.length === 1) setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    const wanted = this.#wanted;
    this.#wanted = [];
    const total = wanted.reduce((s, w) => s + w.n, 0);
    let end: Promise<number>;
    try {
      end = this.#conn().incrby(this.#key, total);
    } catch (err) {
      for (const w of wanted) w.reject(err);
      return;
    }
    end.then(
      (last) => {
        let next = last - total;
        for (const w of wanted) {
          next += w.n;
          w.resolve(next);
        }
      },
      (err: unknown) => {
        for (const w of wanted) w.reject(err);
      },
    );
  }
}
