import type { Clock, Timer } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { JobGate } from '../core/job-gate.js';
import type { ControlPlane } from '../ports/control-plane.js';
import type { Frontier, Task } from '../ports/frontier.js';
import { HostQueues } from './host-queues.js';
import type { TaskResult, TaskRunner } from './task-runner.js';

export interface SchedulerOptions {
  /** Identity used as lease owner. */
  readonly owner: string;
  readonly leaseMs: number;
  /** Upper bound on leased tasks held in memory waiting for their host (all hosts). */
  readonly bufferSize: number;
  /** Upper bound on buffered tasks per host. */
  readonly perHostBuffer: number;
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
  /** Pause before leasing again after a retryable frontier failure (Redis down). @default 1000 */
  readonly unavailableRetryMs?: number;
  /** Resolve run() when no work is left (pending and leased both 0). */
  readonly once: boolean;
  /** Jobs' own limits per (job, host), checked before the control plane's host gate. */
  readonly jobGate?: JobGate;
}

export interface SchedulerCounters {
  ok: number;
  retry: number;
  dead: number;
  skipped: number;
  deferred: number;
  lost: number;
}

type State = 'new' | 'running' | 'paused' | 'draining' | 'stopped';

/** Pause before repeating a lease that found only excluded hosts' work (a submit cuts it short). */
const FUTILE_RECHECK_MIN_MS = 100;
const FUTILE_RECHECK_MAX_MS = 1000;

/**
 * The task loop: frontier.lease → per-host buffer → control plane admit → run.
 *
 * Event-driven, never busy-waiting: pump() runs when something changed (a task ended, a
 * permit freed, new work was enqueued, the single wake timer fired) and pumps coalesce
 * into one per macrotask. At most one timer is armed at a time, for the earliest moment
 * something could become runnable.
 */
export class Scheduler {
  readonly counters: SchedulerCounters = { ok: 0, retry: 0, dead: 0, skipped: 0, deferred: 0, lost: 0 };
  #state: State = 'new';
  readonly #buffers = new HostQueues();
  readonly #inflight = new Map<Task, { abort: AbortController; done: Promise<void> }>();
  /** Hosts handed back (paused / broken) and when they may be leased again (epoch ms). */
  readonly #deferredHosts = new Map<string, number>();
  /** Hosts told to wait (rate limit, politeness) and until when (epoch ms). */
  readonly #waiting = new Map<string, number>();
  #pumpScheduled = false;
  #pumping = false;
  #again = false;
  #frontierEmpty = false;
  /** Excluded-host set (joined) of the last lease that returned nothing because of it. */
  #futileExclude: string | undefined;
  /** The hosts of #futileExclude. */
  #futileHosts: ReadonlySet<string> = new Set();
  /** Monotonic time until which a lease with #futileExclude is not retried, and the current pause. */
  #futileUntil = 0;
  #futilePauseMs = FUTILE_RECHECK_MIN_MS;
  #timer: Timer | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #finished!: () => void;
  readonly #finishedPromise = new Promise<void>((r) => {
    this.#finished = r;
  });
  #unsubscribe: (() => void) | undefined;
  #failure: unknown;

  constructor(
    private readonly frontier: Frontier,
    private readonly control: ControlPlane,
    private readonly runner: TaskRunner,
    private readonly clock: Clock,
    private readonly events: CrawlEmitter,
    private readonly options: SchedulerOptions,
  ) {}

  get state(): State {
    return this.#state;
  }

  get inflightCount(): number {
    return this.#inflight.size;
  }

  get bufferedCount(): number {
    return this.#buffers.size;
  }

  /** Starts the loop; the promise resolves when the loop stops (once-mode end, or stop()). */
  run(): Promise<void> {
    if (this.#state === 'new') {
      this.#state = 'running';
      this.#unsubscribe = this.control.onAvailable(() => this.kick());
      this.kick();
    }
    return this.#finishedPromise.then(() => {
      if (this.#failure) throw this.#failure;
    });
  }

  /** Something changed (new work, a slot freed): pump soon. Cheap and idempotent. */
  kick(newWork = false): void {
    // Work from outside (a submission) may be for a host a futile lease did not reach.
    if (newWork) this.#futileExclude = undefined;
    if (this.#pumpScheduled || this.#state === 'stopped') return;
    this.#frontierEmpty = false;
    this.#pumpScheduled = true;
    setImmediate(() => {
      this.#pumpScheduled = false;
      void this.#pump();
    });
  }

  pause(): void {
    if (this.#state !== 'running') return;
    this.#state = 'paused';
    void this.#handBack(this.#buffers.takeAll(), 'paused', 0);
    this.events.emit('paused', {});
  }

  resume(): void {
    if (this.#state !== 'paused') return;
    this.#state = 'running';
    this.events.emit('resumed', {});
    this.kick();
  }

  /**
   * Graceful stop: no new leases or starts, buffered tasks handed back at once, in-flight
   * requests get until drainMs, then are aborted (their tasks go back uncharged).
   */
  async stop(drainMs: number): Promise<{ aborted: number }> {
    if (this.#state === 'stopped' || this.#state === 'draining') {
      await this.#finishedPromise.catch(() => {});
      return { aborted: 0 };
    }
    this.#state = 'draining';
    this.#timer?.cancel();
    await this.#handBack(this.#buffers.takeAll(), 'shutdown', 0);
    const all = Promise.all([...this.#inflight.values()].map((f) => f.done));
    let aborted = 0;
    const deadline = new Promise<'timeout'>((resolve) =>
      this.clock.setTimer(() => resolve('timeout'), drainMs),
    );
    if ((await Promise.race([all.then(() => 'done' as const), deadline])) === 'timeout') {
      for (const f of this.#inflight.values()) {
        aborted++;
        f.abort.abort();
      }
      await all;
    }
    this.#finish();
    return { aborted };
  }

  #finish(): void {
    this.#state = 'stopped';
    this.#timer?.cancel();
    this.#unsubscribe?.();
    this.#finished();
  }

  async #pump(): Promise<void> {
    if (this.#pumping) {
      this.#again = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#again = false;
        await this.#pumpOnce();
      } while (this.#again && (this.#state === 'running' || this.#state === 'paused'));
    } catch (err) {
      if ((err as { retryable?: unknown }).retryable === true && this.#state !== 'stopped') {
        // The store is unreachable for now (Redis restarting): keep what is in flight and
        // buffered, and try again later.
        this.events.emit('internalError', { where: 'frontier', error: err });
        this.#arm(this.options.unavailableRetryMs ?? 1000);
        return;
      }
      // A frontier failure (disk full, database gone) is fatal for the loop: surface it.
      this.#failure = err;
      this.#finish();
    } finally {
      this.#pumping = false;
    }
  }

  async #pumpOnce(): Promise<void> {
    if (this.#state !== 'running') return;
    const now = this.clock.now();
    for (const [host, until] of this.#deferredHosts) if (until <= now) this.#deferredHosts.delete(host);
    for (const [host, until] of this.#waiting) if (until <= now) this.#waiting.delete(host);

    const exclude = new Set(this.#deferredHosts.keys());
    for (const host of this.#buffers.hosts()) {
      if (this.#buffers.hostSize(host) >= this.#hostBufferCap(host)) exclude.add(host);
    }
    const excludeKey = [...exclude].sort().join('\n');
    // A lease that found only excluded hosts' work finds the same while the same hosts are
    // excluded: skip it (it can cost a bounded scan of the ready queue) until that changes.
    // A finished task of an excluded host mostly enqueues work for that same host, yet
    // re-checking after each one made this scan (up to the frontier's scan limit, ~6 ms) the
    // top item of a one-host crawl's CPU profile. So after those, re-check after a pause
    // doubling from 100 ms to 1 s; after a task of another host or a submit, at once.
    const futile =
      exclude.size > 0 && excludeKey === this.#futileExclude && this.clock.monotonic() < this.#futileUntil;
    if (!this.#frontierEmpty && !futile && this.#buffers.size < this.options.bufferSize) {
      const tasks = await this.frontier.lease({
        max: this.options.bufferSize - this.#buffers.size,
        leaseMs: this.options.leaseMs,
        owner: this.options.owner,
        excludeHosts: exclude,
        // A shared frontier gives each host no more than its buffer has room for: one lease of
        // a one-host crawl took up to bufferSize (1024 by default) and left a daemon started
        // later nothing to lease.
        maxPerHost: (host) => this.#hostBufferCap(host) - this.#buffers.hostSize(host),
      });
      if (this.#state !== 'running') {
        await this.#handBack(tasks, 'paused', 0);
        return;
      }
      for (const t of tasks) this.#buffers.push(t);
      // Nothing came back: don't ask again until something changes (kick) or the timer fires.
      if (tasks.length === 0 && exclude.size === 0) this.#frontierEmpty = true;
      // A lease without exclusions says nothing about other hosts' work: the futile state
      // (and its growing pause) stands, or a buffer hovering at its cap would reset it often.
      if (exclude.size > 0 && tasks.length > 0) this.#futileExclude = undefined;
      if (exclude.size > 0 && tasks.length === 0) {
        this.#futilePauseMs =
          excludeKey === this.#futileExclude
            ? Math.min(FUTILE_RECHECK_MAX_MS, this.#futilePauseMs * 2)
            : FUTILE_RECHECK_MIN_MS;
        this.#futileExclude = excludeKey;
        this.#futileHosts = exclude;
        this.#futileUntil = this.clock.monotonic() + this.#futilePauseMs;
      }
    }

    let wakeInMs = Number.POSITIVE_INFINITY;
    for (const host of this.#buffers.hosts()) {
      for (;;) {
        if (this.#buffers.hostSize(host) === 0) break;
        const minLeft = this.options.minLeaseLeftMs;
        const head = this.#buffers.peek(host);
        if (minLeft !== undefined && head && head.leaseExpiresAt - this.clock.now() <= minLeft) {
          await this.#handBack([this.#buffers.shift(host)!], 'lease_expiring', 0);
          // Back in the queue at once: pump again to lease it (or others) with a fresh lease.
          this.#frontierEmpty = false;
          this.#again = true;
          continue;
        }
        const gate = this.options.jobGate;
        let pick = head;
        if (gate?.active) {
          // A job at its own limit holds back only its own tasks, not other jobs' on this host.
          let soonest = Number.POSITIVE_INFINITY;
          pick = this.#buffers.find(host, (t) => {
            const w = gate.waitMs(t.jobId, host);
            if (w > 0) soonest = Math.min(soonest, w);
            return w === 0;
          });
          // Infinity: a job's slot frees when one of its tasks ends, which kicks the pump.
          if (!pick) {
            wakeInMs = Math.min(wakeInMs, soonest);
            break;
          }
        }
        const adm = this.control.admit(host);
        if (adm.kind === 'go') {
          this.#buffers.remove(host, pick!);
          gate?.acquire(pick!.jobId, host);
          this.#start(pick!, adm.permit);
          continue;
        }
        if (adm.kind === 'wait') {
          wakeInMs = Math.min(wakeInMs, adm.delayMs);
          // Count a wait once per host and period, not once per pump that finds it waiting.
          if ((this.#waiting.get(host) ?? 0) <= now) {
            this.#waiting.set(host, now + adm.delayMs);
            this.events.emit('throttled', { host, reason: adm.reason, delayMs: adm.delayMs });
          }
        }
        if (adm.kind === 'defer') {
          this.#deferredHosts.set(host, now + adm.delayMs);
          await this.#handBack(this.#buffers.take(host), adm.reason, adm.delayMs);
          wakeInMs = Math.min(wakeInMs, adm.delayMs);
        }
        break;
      }
    }
    if (futile && this.#buffers.size > 0) {
      wakeInMs = Math.min(wakeInMs, Math.max(0, this.#futileUntil - this.clock.monotonic()));
    }
    if (this.#deferredHosts.size > 0) {
      const soonest = Math.min(...this.#deferredHosts.values());
      wakeInMs = Math.min(wakeInMs, Math.max(0, soonest - now));
    }

    if (this.#buffers.size === 0 && this.#inflight.size === 0 && this.#frontierEmpty) {
      const next = await this.frontier.nextReadyAt();
      if (next === undefined) {
        if (this.options.once) {
          const stats = await this.frontier.stats();
          if (stats.pending === 0 && stats.leased === 0) {
            this.events.emit('idle', {});
            this.#finish();
            return;
          }
        }
        this.events.emit('idle', {});
      } else {
        wakeInMs = Math.min(wakeInMs, Math.max(0, next - this.clock.now()));
      }
      if (this.options.idlePollMs > 0) wakeInMs = Math.min(wakeInMs, this.options.idlePollMs);
    }
    this.#arm(wakeInMs);
  }

  #hostBufferCap(host: string): number {
    return Math.min(this.options.perHostBuffer, Math.max(2, this.control.hostLimit(host) * 2));
  }

  #arm(inMs: number): void {
    if (!Number.isFinite(inMs)) return;
    const at = this.clock.monotonic() + inMs;
    // Keep an earlier timer; one timer at a time bounds the number of pending timers to 1.
    if (this.#timer && this.#timerAt <= at) return;
    this.#timer?.cancel();
    this.#timerAt = at;
    // Kept alive: this timer is the only thing left when every task waits (a paused host, an
    // open breaker, a retry delay, a rate limit, a politeness gap); unref'd, Node's loop
    // drained and `--once` exited 0 with the work undone.
    this.#timer = this.clock.setTimer(
      () => {
        this.#timer = undefined;
        this.#timerAt = Number.POSITIVE_INFINITY;
        this.kick();
      },
      inMs,
      { keepAlive: true },
    );
  }

  #start(task: Task, permit: Parameters<TaskRunner['run']>[1]): void {
    const abort = new AbortController();
    const done = this.runner
      .run(task, permit, abort.signal)
      .catch((err): TaskResult => {
        // The frontier or a sink failed mid-task: the lease expires and the task comes back.
        permit.release({ kind: 'ignore' });
        this.events.emit('internalError', { where: 'task', error: err });
        return 'lost';
      })
      .then((result) => {
        this.counters[result]++;
        this.#inflight.delete(task);
        this.options.jobGate?.release(task.jobId, task.host);
        // A finished task may have enqueued links (or its own retry) for a host the last
        // futile lease could not reach: that is new work, unless it is likely for an excluded
        // host (the task's own), which the lease after the futile pause finds.
        this.kick(!this.#futileHosts.has(task.host));
      });
    this.#inflight.set(task, { abort, done });
  }

  async #handBack(tasks: readonly Task[], reason: string, delayMs: number): Promise<void> {
    const at = this.clock.now() + delayMs;
    for (const t of tasks) {
      try {
        await this.frontier.retry(t, { at, reason, chargeAttempt: false });
      } catch (err) {
        // Unreachable store: the lease expires and the task comes back by itself.
        this.events.emit('internalError', { where: 'handBack', error: err });
        continue;
      }
      this.counters.deferred++;
      this.events.emit('deferred', { jobId: t.jobId, host: t.host, reason, delayMs });
    }
  }
}
