import type { JobGate } from '../../core/job-gate.js';
import type { FetcherKind } from '../../ports/control-plane.js';
import type { WorkSharing } from '../../ports/work-sharing.js';

export interface SchedulerOptions {
  /** The lease owner. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Leased tasks held waiting for their host (all hosts); below it, about a second of fetching. */
  readonly bufferSize: number;
  /**
   * Waiting hosts whose next task may be buffered beyond bufferSize, so that they take turns
   * instead of leaving a tail of few busy hosts (docs/performance.md, _engine_).
   * @default MAX_WAITING_HOSTS (the per-host structures' bound)
   */
  readonly maxWaitingHosts?: number;
  readonly perHostBuffer: number;
  /**
   * Room the buffers need before the next lease (unless empty): a lease has a fixed cost.
   * @default a quarter of what the buffers may hold (lease-ahead.ts)
   */
  readonly minLeaseBatch?: number;
  /** Idle poll; 0 = never (a daemon alone learns of new work from its own enqueues). */
  readonly idlePollMs: number;
  /**
   * A buffered task with less lease left goes back instead of starting: on a shared frontier
   * another daemon may lease it. @default undefined: no check (a frontier owned alone)
   */
  readonly minLeaseLeftMs?: number;
  /** Hunger told to and heard from other daemons (work-share.ts). @default undefined: none */
  readonly workSharing?: WorkSharing;
  /** After a retryable frontier failure (Redis down). @default 1000 */
  readonly unavailableRetryMs?: number;
  readonly once: boolean;
  readonly jobGate?: JobGate;
  /** @default 'http' */
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
