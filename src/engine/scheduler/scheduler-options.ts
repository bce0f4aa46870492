/** The scheduler's options and counters: its public shape, apart from the loop itself. */
import type { JobGate } from '../../core/job-gate.js';
import type { FetcherKind } from '../../ports/control-plane.js';
import type { WorkSharing } from '../../ports/work-sharing.js';

export interface SchedulerOptions {
  /** Identity used as lease owner. */
  readonly owner: string;
  readonly leaseMs: number;
  /**
   * Upper bound on leased tasks held in memory waiting for their host (all hosts). Below it the
   * buffers hold about a second of the daemon's fetching (lease-ahead.ts).
   */
  readonly bufferSize: number;
  /**
   * Hosts in a politeness or rate-limit wait whose next task may be buffered beyond bufferSize
   * (one each: a waiting host buffers one). Over thousands of polite hosts, bufferSize alone
   * held the next task of only some of them; the others' work stayed in the frontier, leased
   * in FIFO order as slots freed, so hosts with older tasks went on and the rest fell behind:
   * the crawl ended with a tail of few busy hosts (bench/breadth.mjs). With every waiting
   * host's next task buffered, hosts take turns in the buffers' rotation.
   * @default MAX_WAITING_HOSTS (the per-host structures' bound)
   */
  readonly maxWaitingHosts?: number;
  /** Upper bound on buffered tasks per host. */
  readonly perHostBuffer: number;
  /**
   * The buffers must have room for this many tasks before the scheduler leases again, unless
   * they are empty. A lease has a fixed cost (a write transaction, the excluded hosts): leasing
   * whenever one task had started made one small lease per completion (commit
   * 8227bab).
   * @default a quarter of what the buffers may hold (lease-ahead.ts)
   */
  readonly minLeaseBatch?: number;
  /**
   * Poll the frontier this often when idle. 0 = never: a single daemon learns of new work
   * from its own enqueues (kick()), and sleeps until the next delayed task otherwise.
   * Shared frontiers (Redis) need polling since other daemons add work.
   */
  readonly idlePollMs: number;
  /**
   * A buffered task whose lease has less than this left is handed back instead of started:
   * on a shared frontier an expired lease is leased (and fetched) by another daemon too.
   * @default undefined: no check (a frontier this daemon owns alone keeps an expired lease's
   * token valid until it leases the task again itself)
   */
  readonly minLeaseLeftMs?: number;
  /**
   * Other daemons lease from the same frontier: hunger is told to them and heard from them
   * (work-share.ts). @default undefined: nothing is shared (a frontier this daemon owns alone)
   */
  readonly workSharing?: WorkSharing;
  /** Pause before leasing again after a retryable frontier failure (Redis down). @default 1000 */
  readonly unavailableRetryMs?: number;
  /** Resolve run() when no work is left (pending and leased both 0). */
  readonly once: boolean;
  /** Jobs' own limits per (job, host), checked before the control plane's host gate. */
  readonly jobGate?: JobGate;
  /** What serves a job's requests, told to the control plane with each admit. @default 'http' */
  readonly fetcherKind?: (jobId: string, host: string) => FetcherKind;
}

export interface SchedulerCounters {
  ok: number;
  retry: number;
  dead: number;
  skipped: number;
  deferred: number;
  lost: number;
  /** Requests crawld made for itself (a host's soft-404 probe, docs/traps.md): no page, no record. */
  probe: number;
}
