/**
 * Keeps the leases of the tasks this daemon works on (started and not yet ended): each is
 * extended to now + leaseMs once less than half of it is left, so a task may run longer than
 * its lease without another daemon leasing it too. Only these: a task waiting in the buffers
 * is not extended (the scheduler hands it back when its lease runs low), and a task that
 * ended is forgotten. So a daemon that dies leaves leases that expire at most leaseMs after
 * its death, whatever the tasks were doing.
 *
 * One timer, armed for the earliest extension due; a tick extends every lease due within a
 * quarter of leaseMs more, so long tasks started close together cost one batch, not one call
 * each. A lease the frontier no longer knows under its token (it expired and another daemon
 * took it back) is reported lost: the caller stops working on that task.
 */
import type { Clock, Timer } from '../../core/clock.js';
import type { Frontier, Task } from '../../ports/frontier.js';

/**
 * The lease keeper's rule: a started task's lease is extended once less than
 * extendWhenLeft of leaseMs is left; a tick also extends those due within batchWindow of
 * leaseMs more; a failed extension is tried again after retryMs.
 */
export const LEASE_KEEPER = { extendWhenLeft: 0.5, batchWindow: 0.25, retryMs: 1000 } as const;

export interface LeaseKeeperDeps {
  readonly frontier: Pick<Frontier, 'extend'>;
  readonly clock: Clock;
  readonly leaseMs: number;
  /** The task's lease is gone (another holder may have it): stop working on it. */
  readonly onLost: (task: Task) => void;
  /** An extension call failed (store unreachable): retried in LEASE_KEEPER.retryMs. */
  readonly onError: (err: unknown) => void;
}

/** When a lease that expires at `expiresAt` is to be extended: once half of it is left. */
export function extendAt(expiresAt: number, leaseMs: number): number {
  return expiresAt - leaseMs * LEASE_KEEPER.extendWhenLeft;
}

export class LeaseKeeper {
  /** Tracked tasks and the expiry of their lease as last set (at most the frontier's). */
  readonly #expiry = new Map<Task, number>();
  #timer: Timer | undefined;
  #at = Number.POSITIVE_INFINITY;
  #ticking = false;
  #stopped = false;
  /** After a failed call: no extension before this (the store is likely down for all of them). */
  #holdUntil = Number.NEGATIVE_INFINITY;

  readonly #deps: LeaseKeeperDeps;

  constructor(deps: LeaseKeeperDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#expiry.size;
  }

  /** The task started: keep its lease until untrack(). */
  track(task: Task): void {
    if (this.#stopped) return;
    this.#expiry.set(task, task.leaseExpiresAt);
    // O(1): the timer stays when it fires before this task's extension is due.
    this.#arm(extendAt(task.leaseExpiresAt, this.#deps.leaseMs));
  }

  /** The task ended (acked, retried, dead-lettered, handed back, aborted): forget it. */
  untrack(task: Task): void {
    this.#expiry.delete(task);
    // A timer left armed for tasks that ended finds nothing due and re-arms for the rest.
    if (this.#expiry.size === 0) this.#cancel();
  }

  stop(): void {
    this.#stopped = true;
    this.#expiry.clear();
    this.#cancel();
  }

  #arm(due: number): void {
    const at = Math.max(due, this.#holdUntil);
    if (this.#stopped || this.#ticking || this.#expiry.size === 0 || at >= this.#at) return;
    this.#timer?.cancel();
    this.#at = at;
    this.#timer = this.#deps.clock.setTimer(
      () => {
        this.#timer = undefined;
        this.#at = Number.POSITIVE_INFINITY;
        void this.#tick();
      },
      Math.max(0, at - this.#deps.clock.now()),
    );
  }

  #cancel(): void {
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#at = Number.POSITIVE_INFINITY;
  }

  async #tick(): Promise<void> {
    const { clock, frontier, leaseMs } = this.#deps;
    const now = clock.now();
    const horizon = now + leaseMs * LEASE_KEEPER.batchWindow;
    const due = [...this.#expiry].filter(([, exp]) => extendAt(exp, leaseMs) <= horizon).map(([t]) => t);
    let failed = false;
    if (due.length > 0) {
      this.#ticking = true;
      const replies = await Promise.allSettled(due.map((t) => frontier.extend(t, leaseMs)));
      this.#ticking = false;
      for (const [i, task] of due.entries()) {
        const reply = replies[i]!;
        // Ended meanwhile: its ack or hand-back answers for it.
        if (!this.#expiry.has(task)) continue;
        if (reply.status === 'rejected') {
          failed = true;
          this.#deps.onError(reply.reason);
        } else if (reply.value) {
          // The frontier's now was at least ours: the lease lasts at least this long.
          this.#expiry.set(task, now + leaseMs);
        } else {
          this.#expiry.delete(task);
          this.#deps.onLost(task);
        }
      }
    }
    let next = Number.POSITIVE_INFINITY;
    for (const exp of this.#expiry.values()) next = Math.min(next, extendAt(exp, leaseMs));
    // A failed call is tried again soon (the lease has up to half of leaseMs to go), not at once.
    if (failed) this.#holdUntil = clock.now() + LEASE_KEEPER.retryMs;
    this.#arm(next);
  }
}
