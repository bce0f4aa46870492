/**
 * The frontier: a durable priority queue of URLs with dedupe, leases, retries, a dead-letter queue and recrawls.
 * Every adapter passes test/contract/frontier-contract.ts:
 * - lease() returns ready tasks by priority (lower first), FIFO per host (SQLite: fair turns across hosts). A task
 *   that re-enters the queue (retry, recrawl, redrive, force) joins the back; one whose lease expired keeps its place.
 * - A (jobId, url) is enqueued once unless `force`; the url is already normalised. At maxPending, non-forced
 *   requests are dropped and not marked seen.
 * - An expired lease makes its task ready again (at least once); a stale token makes ack/retry/deadLetter/extend
 *   return false. Each call is atomic (an enqueue batch is one transaction); time comes from the injected Clock only.
 */

/** The Redis score packs a priority into 12 bits (adapters/frontier/redis/keys.ts). */
export const REDIS_PRIORITY_MIN = -2048;
export const REDIS_PRIORITY_MAX = 2047;

export interface EnqueueRequest {
  /** Normalised: the dedupe key. */
  readonly url: string;
  /** The URL as discovered, when it differs from `url`; the first enqueue's is kept. */
  readonly requestUrl?: string;
  readonly jobId: string;
  /** Lower is sooner. @default 0 */
  readonly priority?: number;
  /** @default 0 */
  readonly depth?: number;
  /** Epoch ms. @default now */
  readonly notBefore?: number;
  /** Ignore seen and maxPending; a done or dead task returns with generation + 1. @default false */
  readonly force?: boolean;
}

export interface EnqueueResult {
  readonly added: number;
  readonly duplicates: number;
  readonly dropped: number;
}

export interface Task {
  /** Stable for (jobId, url) for the life of the frontier. */
  readonly id: string;
  readonly url: string;
  readonly requestUrl?: string;
  /** With the port when not default. */
  readonly host: string;
  readonly jobId: string;
  readonly priority: number;
  readonly depth: number;
  /** Charged before this lease. */
  readonly attempts: number;
  /** +1 each recrawl. */
  readonly generation: number;
  readonly leaseToken: string;
  readonly leaseExpiresAt: number;
  readonly lastError?: string;
}

export interface LeaseOptions {
  readonly max: number;
  readonly leaseMs: number;
  /** The daemon's instance id. */
  readonly owner: string;
  readonly excludeHosts?: ReadonlySet<string>;
  /** A shared frontier honours it, so one daemon does not lease what another could start. @default no bound */
  readonly maxPerHost?: (host: string) => number;
}

export interface RetryOptions {
  readonly at: number;
  readonly reason: string;
  /** False for deferrals: attempts stay as they are. */
  readonly chargeAttempt: boolean;
}

export interface AckOptions {
  /** Back to pending then, with generation + 1. */
  readonly recrawlAt?: number;
}

export interface DeadLetter {
  readonly id: string;
  readonly url: string;
  readonly requestUrl?: string;
  readonly jobId: string;
  readonly priority: number;
  readonly depth: number;
  readonly attempts: number;
  readonly reason: string;
  readonly deadAt: number;
}

export interface FrontierStats {
  readonly pending: number;
  readonly delayed: number;
  readonly leased: number;
  readonly done: number;
  readonly dead: number;
  readonly pendingByPriority: Readonly<Record<string, number>>;
}

export interface Frontier {
  open(): Promise<void>;
  /** Leases stay leased in durable adapters. */
  close(): Promise<void>;

  enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult>;
  lease(options: LeaseOptions): Promise<Task[]>;
  ack(task: Task, options?: AckOptions): Promise<boolean>;
  retry(task: Task, options: RetryOptions): Promise<boolean>;
  /** Charges one more attempt. */
  deadLetter(task: Task, reason: string): Promise<boolean>;
  /** false when the token is stale; a dead holder's tasks still come back leaseMs after its last extension. */
  extend(task: Task, leaseMs: number): Promise<boolean>;

  stats(): Promise<FrontierStats>;
  /** The earliest notBefore or lease expiry, for sleeping without polling; undefined when idle. */
  nextReadyAt(): Promise<number | undefined>;
  /**
   * Expired leases included: they are reclaimed lazily, and until then their token still works.
   * `owner`: only that owner's leases (a daemon restarted on a shared frontier).
   */
  listLeased(options?: { owner?: string }): Promise<Task[]>;

  listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]>;
  /** No ids: all (an empty array: none). Returns how many moved. */
  redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number>;
}
