/**
 * Extends the leases of started tasks only, so a task may outrun its lease while a dead daemon's
 * leases still lapse within leaseMs. One timer; a tick batches the leases due soon after.
 */
import type { Clock, Timer } from '../../core/clock.js';
import type { Frontier, Task } from '../../ports/frontier.js';

/** Fractions of leaseMs: extend when this much is left; a tick also takes those due within batchWindow. */
export const LEASE_KEEPER = { extendWhenLeft: 0.5, batchWindow: 0.25, retryMs: 1000 } as const;

export interface LeaseKeeperDeps {
  readonly frontier: Pick<Frontier, 'extend'>;
  readonly clock: Clock;
  readonly leaseMs: number;
  /** Another holder may have it: stop working on it. */
  readonly onLost: (task: Task) => void;
  readonly onError: (err: unknown) => void;
}

export function extendAt(expiresAt: number, leaseMs: number): number {
  return expiresAt - leaseMs * LEASE_KEEPER.extendWhenLeft;
}

export class LeaseKeeper {
  readonly #expiry = new Map<Task, number>();
  #timer: Timer | undefined;
  #at = Number.POSITIVE_INFINITY;
  #ticking = false;
  #stopped = false;
  /** After a failed call the store is likely down for all of them. */
  #holdUntil = Number.NEGATIVE_INFINITY;

  readonly #deps: LeaseKeeperDeps;

  constructor(deps: LeaseKeeperDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#expiry.size;
  }

  track(task: Task): void {
    if (this.#stopped) return;
    this.#expiry.set(task, task.leaseExpiresAt);
    // O(1): the timer stays when it fires before this task's extension is due.
    this.#arm(extendAt(task.leaseExpiresAt, this.#deps.leaseMs));
  }

  untrack(task: Task): void {
    this.#expiry.delete(task);
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
    // Soon, not at once: the lease has up to half of leaseMs to go.
    if (failed) this.#holdUntil = clock.now() + LEASE_KEEPER.retryMs;
    this.#arm(next);
  }
}
