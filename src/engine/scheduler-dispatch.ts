/**
 * The scheduler's admission of one host's buffered tasks (scheduler.ts, one per pump and host):
 * each task asks the job gate and the control plane, and starts, waits, or goes back.
 */
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { ControlPlane, Permit } from '../ports/control-plane.js';
import type { Task } from '../ports/frontier.js';
import type { HostHolds } from './host-holds.js';
import type { HostQueues } from './host-queues.js';
import type { SchedulerOptions } from './scheduler-options.js';

export interface DispatchDeps {
  readonly buffers: HostQueues;
  readonly holds: HostHolds;
  readonly control: ControlPlane;
  readonly clock: Clock;
  readonly events: CrawlEmitter;
  readonly options: SchedulerOptions;
  handBack(tasks: readonly Task[], reason: string, delayMs: number): Promise<void>;
  start(task: Task, permit: Permit): void;
  /** A task whose lease ran low went back: lease again in this pump. */
  leaseAgain(): void;
}

/**
 * Starts the host's buffered tasks while the job gate and the control plane admit them;
 * returns how long until the host may be asked again (Infinity: when something kicks).
 */
export async function dispatchHost(d: DispatchDeps, host: string, now: number): Promise<number> {
  const { buffers, options } = d;
  for (;;) {
    if (buffers.hostSize(host) === 0) return Number.POSITIVE_INFINITY;
    const minLeft = options.minLeaseLeftMs;
    const head = buffers.peek(host);
    if (minLeft !== undefined && head && head.leaseExpiresAt - d.clock.now() <= minLeft) {
      await d.handBack([buffers.shift(host)!], 'lease_expiring', 0);
      // Back in the queue at once: pump again to lease it (or others) with a fresh lease.
      d.leaseAgain();
      continue;
    }
    const gate = options.jobGate;
    let pick = head;
    if (gate?.active) {
      // A job at its own limit holds back only its own tasks, not other jobs' on this host.
      let soonest = Number.POSITIVE_INFINITY;
      pick = buffers.find(host, (t) => {
        const w = gate.waitMs(t.jobId, host);
        if (w > 0) soonest = Math.min(soonest, w);
        return w === 0;
      });
      // Infinity: a job's slot frees when one of its tasks ends, which kicks the pump.
      if (!pick) return soonest;
    }
    const adm = d.control.admit(host, options.fetcherKind?.(pick!.jobId, host));
    if (adm.kind === 'go') {
      buffers.remove(host, pick!);
      gate?.acquire(pick!.jobId, host);
      d.start(pick!, adm.permit);
      continue;
    }
    if (adm.kind === 'wait') {
      // Count a wait once per host and period, not once per pump that finds it waiting.
      if (d.holds.wait(host, now, adm.delayMs))
        d.events.emit('throttled', { host, reason: adm.reason, delayMs: adm.delayMs });
      return adm.delayMs;
    }
    if (adm.kind === 'defer') {
      d.holds.defer(host, now + adm.delayMs);
      await d.handBack(buffers.take(host), adm.reason, adm.delayMs);
      return adm.delayMs;
    }
    return Number.POSITIVE_INFINITY;
  }
}
