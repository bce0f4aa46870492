/**
 * The frontier: a durable priority queue of URLs to crawl, with dedupe, leases,
 * delayed retries, a dead-letter queue and recrawl scheduling.
 *
 * Every adapter (memory, SQLite, Redis) must pass test/contract/frontier-contract.ts.
 *
 * Contract, for every adapter:
 * - Ordering: lease() returns ready tasks (notBefore <= now, not leased) ordered by
 *   priority ascending (lower number first); within a priority each host's tasks are FIFO
 *   by enqueue order. Across hosts the memory and Redis frontiers keep one FIFO; the SQLite
 *   frontier gives hosts fair turns (a host's n-th queued task before any host's (n+1)-th,
 *   a host with nothing queued joining the current turn: adapters/frontier/sqlite/fair.ts).
 *   A task that re-enters the queue (retry, recrawl, redrive, forced re-enqueue) joins the
 *   back of its priority (SQLite: of its host's turns); a task whose lease expired keeps its
 *   place.
 * - Dedupe: a (jobId, url) pair is enqueued at most once for the life of the frontier
 *   unless `force` is set; the url must already be normalised by the caller
 *   (core/url.ts). Duplicates are counted, not errors.
 * - Bound: when pending tasks (ready + delayed, not leased) reach `maxPending`, new
 *   non-forced requests are dropped and counted in `dropped`; a dropped URL is NOT marked
 *   seen, so it can be enqueued again later when there is room. Forced requests
 *   (seeds, API submissions) are never dropped.
 * - Leases: lease() marks tasks leased by `owner` until now + leaseMs. A lease that
 *   expires makes the task ready again (same attempts; at-least-once delivery). ack,
 *   retry, deadLetter and extend take the Task returned by lease(); if its lease token is
 *   stale (expired and re-leased) they do nothing and return false.
 * - Atomicity: each call is atomic: a crash leaves each task either before or after the
 *   call, never half-way. enqueue() of a batch is one transaction.
 * - Time: adapters read time from the injected Clock only.
 */

/**
 * The priorities the Redis frontier can store: its queue score packs a priority into 12 bits
 * and a FIFO sequence into 41 (adapters/frontier/redis/keys.ts). Its enqueue refuses others;
 * the config and the admin API refuse them for the Redis kinds before anything runs.
 */
export const REDIS_PRIORITY_MIN = -2048;
export const REDIS_PRIORITY_MAX = 2047;

export interface EnqueueRequest {
  /** Absolute, normalised URL: the dedupe key. */
  readonly url: string;
  /**
   * The URL to request, as discovered (parsed and resolved, query order, tracking parameters and
   * escapes kept), when it differs from `url`. Stored with the task by the first enqueue of its
   * key; a duplicate's is ignored. Tasks stored before this field existed have none.
   */
  readonly requestUrl?: string;
  readonly jobId: string;
  /** Lower is sooner. @default 0 */
  readonly priority?: number;
  /** Link distance from a seed. @default 0 */
  readonly depth?: number;
  /** Epoch ms before which the task must not be leased. @default now */
  readonly notBefore?: number;
  /**
   * Enqueue even if seen before and ignore maxPending (seeds, API submissions, redrives).
   * If the task is pending it is left alone; if done or dead, it goes back to pending with
   * generation + 1 and attempts 0. A leased task is left alone.
   * @default false
   */
  readonly force?: boolean;
}

export interface EnqueueResult {
  readonly added: number;
  readonly duplicates: number;
  /** Dropped because the frontier was full. */
  readonly dropped: number;
}

export interface Task {
  /** Stable for (jobId, url) for the life of the frontier. */
  readonly id: string;
  /** The dedupe key (normalised URL). */
  readonly url: string;
  /** The URL to request when it differs from `url` (see EnqueueRequest.requestUrl). */
  readonly requestUrl?: string;
  /** Lower-case hostname of url (with port when not default), used for per-host fairness. */
  readonly host: string;
  readonly jobId: string;
  readonly priority: number;
  readonly depth: number;
  /** Attempts charged before this lease (0 on the first try). */
  readonly attempts: number;
  /** Recrawl cycle: 0 on first crawl, +1 each time the task is rescheduled after done. */
  readonly generation: number;
  /** Opaque token of the current lease. */
  readonly leaseToken: string;
  readonly leaseExpiresAt: number;
  /** Reason of the last failed attempt, if any. */
  readonly lastError?: string;
}

export interface LeaseOptions {
  readonly max: number;
  /** Visibility timeout. */
  readonly leaseMs: number;
  /** Identity of the leasing worker (instance id). */
  readonly owner: string;
  /** Hosts whose tasks must not be returned now (throttled, broken or saturated hosts). */
  readonly excludeHosts?: ReadonlySet<string>;
  /**
   * How many tasks of `host` the caller can take now (what it can start soon). A frontier
   * shared by several daemons honours it, so that one daemon does not lease ahead what
   * another could start (Redis); a frontier one daemon owns may ignore it. @default no bound
   */
  readonly maxPerHost?: (host: string) => number;
}

export interface RetryOptions {
  /** Epoch ms when the task becomes ready again. */
  readonly at: number;
  readonly reason: string;
  /** False for deferrals (open breaker, shutdown, rate limit): attempts stay as they are. */
  readonly chargeAttempt: boolean;
}

export interface AckOptions {
  /** When set, the task goes back to pending at this time with generation + 1 (recrawl). */
  readonly recrawlAt?: number;
}

export interface DeadLetter {
  readonly id: string;
  readonly url: string;
  /** The URL that was requested, when it differs from `url` (see EnqueueRequest.requestUrl). */
  readonly requestUrl?: string;
  readonly jobId: string;
  readonly priority: number;
  readonly depth: number;
  readonly attempts: number;
  readonly reason: string;
  /** Epoch ms when it was dead-lettered. */
  readonly deadAt: number;
}

export interface FrontierStats {
  /** Ready plus delayed, not leased. */
  readonly pending: number;
  /** Pending tasks whose notBefore is in the future. */
  readonly delayed: number;
  readonly leased: number;
  readonly done: number;
  readonly dead: number;
  /** Pending count by priority value. */
  readonly pendingByPriority: Readonly<Record<string, number>>;
}

export interface Frontier {
  /** Idempotent. Creates storage if missing. */
  open(): Promise<void>;
  /** Idempotent. Leased tasks stay leased in durable adapters (they expire later). */
  close(): Promise<void>;

  enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult>;
  lease(options: LeaseOptions): Promise<Task[]>;
  /** Marks the task done (or schedules its recrawl). */
  ack(task: Task, options?: AckOptions): Promise<boolean>;
  /** Returns the task to pending at options.at. */
  retry(task: Task, options: RetryOptions): Promise<boolean>;
  /** Moves the task to the dead-letter queue; attempts is charged once more. */
  deadLetter(task: Task, reason: string): Promise<boolean>;
  /**
   * Moves the task's lease expiry to now + leaseMs, keeping its token; false (nothing done)
   * when ack would answer false (the token is stale). The holder calls it while it works on
   * the task, so that a long task is not leased by someone else, while a dead holder's tasks
   * still come back leaseMs after its last extension.
   */
  extend(task: Task, leaseMs: number): Promise<boolean>;

  stats(): Promise<FrontierStats>;
  /**
   * When lease() may next return a task, for sleeping without polling: the earliest
   * notBefore among delayed tasks or the earliest lease expiry (an expired lease's task
   * comes back then), whichever is sooner; a time <= now when some task is ready already
   * (adapters may answer with any ready task's notBefore). Undefined when nothing is
   * pending or leased.
   */
  nextReadyAt(): Promise<number | undefined>;
  /**
   * Tasks currently leased (for crash recovery against the sink), including leases that
   * have expired but not yet been taken back: expired leases are reclaimed lazily by
   * lease(), and until then the old token still works for ack, retry and deadLetter.
   * `owner`: only the leases that owner took (a daemon restarted on a shared frontier).
   */
  listLeased(options?: { owner?: string }): Promise<Task[]>;

  listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]>;
  /**
   * Moves dead tasks back to pending (attempts 0, ready now, same generation). No ids = all
   * (an empty ids array moves none); ids and jobId together must both match. Unknown or
   * not-dead ids are skipped. Returns how many moved.
   */
  redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number>;
}
