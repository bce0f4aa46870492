import type { Clock } from '../../core/clock.js';
import type { CrawlEmitter } from '../../core/events.js';
import type { ControlPlane, Permit } from '../../ports/control-plane.js';
import type { Frontier, Task } from '../../ports/frontier.js';
import type { TaskRunner } from '../task/task-runner.js';
import { FutileLeases } from './futile-lease.js';
import { HostHolds } from './host-holds.js';
import { HostQueues } from './host-queues.js';
import { InflightTasks } from './inflight-tasks.js';
import { LEASE_AHEAD, LeaseAhead, shedPlan } from './lease-ahead.js';
import type { SchedulerCounters, SchedulerOptions } from './scheduler-options.js';
import { WakeTimer } from './wake-timer.js';
import { WorkShare } from './work-share.js';

export type { SchedulerCounters, SchedulerOptions };

type State = 'new' | 'running' | 'paused' | 'draining' | 'stopped';

/**
 * The task loop: frontier.lease → per-host buffer → control plane admit → run. Event-driven:
 * pumps coalesce into one per macrotask, and one timer wakes it when something could run.
 */
export class Scheduler {
  readonly counters: SchedulerCounters = {
    ok: 0,
    retry: 0,
    dead: 0,
    skipped: 0,
    deferred: 0,
    lost: 0,
    probe: 0,
  };
  #state: State = 'new';
  readonly #buffers = new HostQueues();
  readonly #inflight: InflightTasks;
  readonly #holds = new HostHolds();
  #pumpScheduled = false;
  #pumping = false;
  #again = false;
  #frontierEmpty = false;
  readonly #futile: FutileLeases;
  readonly #ahead: LeaseAhead;
  readonly #timer: WakeTimer;
  readonly #share: WorkShare | undefined;
  #finished!: () => void;
  readonly #finishedPromise = new Promise<void>((r) => {
    this.#finished = r;
  });
  #unsubscribe: (() => void) | undefined;
  #failure: unknown;

  readonly #frontier: Frontier;
  readonly #control: ControlPlane;
  readonly #clock: Clock;
  readonly #events: CrawlEmitter;
  readonly #options: SchedulerOptions;

  constructor(
    frontier: Frontier,
    control: ControlPlane,
    runner: TaskRunner,
    clock: Clock,
    events: CrawlEmitter,
    options: SchedulerOptions,
  ) {
    this.#frontier = frontier;
    this.#control = control;
    this.#clock = clock;
    this.#events = events;
    this.#options = options;
    this.#futile = new FutileLeases(clock);
    this.#ahead = new LeaseAhead(options, clock);
    this.#timer = new WakeTimer(clock, () => this.kick());
    this.#inflight = new InflightTasks(runner, events, { frontier, clock, leaseMs: options.leaseMs });
    const onError = (error: unknown) => events.emit('internalError', { where: 'workSharing', error });
    const sharing = options.workSharing;
    this.#share = sharing && new WorkShare(sharing, clock, { shed: () => this.#shed(), onError });
  }

  get state(): State {
    return this.#state;
  }

  get inflightCount(): number {
    return this.#inflight.size;
  }

  get bufferedCount(): number {
    return this.#buffers.size;
  }

  /** Resolves when the loop stops (once-mode end, or stop()). */
  run(): Promise<void> {
    if (this.#state === 'new') {
      this.#state = 'running';
      this.#unsubscribe = this.#control.onAvailable(() => this.kick());
      this.kick();
    }
    return this.#finishedPromise.then(() => {
      if (this.#failure) throw this.#failure;
    });
  }

  kick(newWork = false): void {
    // Work from outside (a submission) may be for a host a futile lease did not reach.
    if (newWork) this.#futile.forget();
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
    this.#events.emit('paused', {});
  }

  resume(): void {
    if (this.#state !== 'paused') return;
    this.#state = 'running';
    this.#events.emit('resumed', {});
    this.kick();
  }

  /** In-flight requests get until drainMs, then are aborted (their tasks go back uncharged). */
  async stop(drainMs: number): Promise<{ aborted: number }> {
    if (this.#state === 'stopped' || this.#state === 'draining') {
      await this.#finishedPromise.catch(() => {});
      return { aborted: 0 };
    }
    this.#state = 'draining';
    this.#timer.cancel();
    await this.#handBack(this.#buffers.takeAll(), 'shutdown', 0);
    const aborted = await this.#inflight.drain(this.#clock, drainMs);
    this.#finish();
    await this.#finishedPromise;
    return { aborted };
  }

  #finish(): void {
    this.#state = 'stopped';
    this.#timer.cancel();
    this.#inflight.stopKeeping();
    this.#unsubscribe?.();
    // A hungry daemon's mark goes at once: the others need not share with it until it lapses.
    void (this.#share?.stop() ?? Promise.resolve()).then(() => this.#finished());
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
        // The store is unreachable for now (Redis restarting): keep what we hold, try later.
        this.#events.emit('internalError', { where: 'frontier', error: err });
        this.#timer.arm(this.#options.unavailableRetryMs ?? 1000);
        return;
      }
      this.#failure = err;
      this.#finish();
    } finally {
      this.#pumping = false;
    }
  }

  async #pumpOnce(): Promise<void> {
    if (this.#state !== 'running') return;
    const now = this.#clock.now();
    for (const host of this.#holds.expire(now)) this.#buffers.unpark(host);
    // Exclusions only for a lease: they cost a look at every buffered host.
    let futile = false;
    const throttled = now - this.#holds.lastWaitAt < LEASE_AHEAD.windowMs;
    this.#ahead.update(
      this.#control.globalLimit() - this.#control.inflight(),
      this.#share?.sharing,
      throttled,
    );
    if (!this.#frontierEmpty && this.#ahead.leaseRoom(this.#holds.waitingCount, this.#buffers.size) > 0) {
      const exclude = this.#holds.deferredHosts();
      // A parked host waits, and its one buffered task is its cap.
      for (const host of this.#buffers.parkedHosts()) exclude.add(host);
      for (const host of this.#buffers.readyHosts()) {
        if (this.#buffers.hostSize(host) >= this.#hostBufferCap(host, now)) exclude.add(host);
      }
      futile = this.#futile.isFutile(exclude);
      if (!futile && !(await this.#lease(exclude))) return;
    }

    let wakeInMs = this.#holds.nextWaitEndsIn(now);
    for (const host of this.#buffers.readyHosts()) {
      // At the ceiling every host is 'full' until a permit frees (which kicks a pump), and a
      // host told to wait is parked until then: asking was breadth's largest scheduling cost.
      if (this.#control.inflight() >= this.#control.globalLimit()) break;
      if (this.#holds.waitingUntil(host, now) !== undefined) {
        this.#buffers.park(host);
        continue;
      }
      wakeInMs = Math.min(wakeInMs, await this.#dispatchHost(host, now));
    }
    if (futile && this.#buffers.size > 0) wakeInMs = Math.min(wakeInMs, this.#futile.msLeft());
    wakeInMs = Math.min(wakeInMs, this.#holds.nextDeferralEndsIn(now));
    const busy = this.#buffers.size > 0 || this.#inflight.size > 0;
    if (!busy && this.#frontierEmpty) {
      const idle = await this.#idleWake();
      if (idle === 'finished') return this.#finish();
      wakeInMs = Math.min(wakeInMs, idle);
    }
    this.#share?.busy(busy);
    this.#timer.arm(Math.min(wakeInMs, this.#share?.pollMs() ?? wakeInMs));
  }

  /** False when the loop stopped running meanwhile (the tasks went back). */
  async #lease(exclude: ReadonlySet<string>): Promise<boolean> {
    const tasks = await this.#frontier.lease({
      max: this.#ahead.room(this.#holds.waitingCount, this.#buffers.size),
      leaseMs: this.#options.leaseMs,
      owner: this.#options.owner,
      excludeHosts: exclude,
      // So that one daemon does not lease ahead what another could start.
      maxPerHost: (host) => this.#hostBufferCap(host, this.#clock.now()) - this.#buffers.hostSize(host),
    });
    if (this.#state !== 'running') {
      await this.#handBack(tasks, 'paused', 0);
      return false;
    }
    for (const t of tasks) this.#buffers.push(t);
    if (this.#inflight.size > 0 || this.#buffers.size > 0) this.#share?.leased(tasks.length, this.#starved());
    if (tasks.length === 0 && exclude.size === 0) this.#frontierEmpty = true;
    this.#futile.leased(exclude, tasks.length);
    return true;
  }

  #hostBufferCap(host: string, now: number): number {
    const waiting = this.#holds.waitingUntil(host, now) !== undefined;
    // Shared: what the daemon can run bounds what it holds too.
    const limit = this.#control.hostLimit(host);
    const running = this.#share ? Math.min(limit, this.#control.globalLimit()) : limit;
    return this.#ahead.hostCap(running, waiting);
  }

  #starved(): boolean {
    if (this.#control.inflight() >= this.#control.globalLimit()) return false;
    if (this.#buffers.size > this.#holds.waitingCount) return false;
    const now = this.#clock.now();
    // Parked hosts wait; the ones in the round may have been told to wait since.
    return this.#buffers.readyHosts().every((host) => this.#holds.waitingUntil(host, now) !== undefined);
  }

  /** Another daemon is hungry: hand back what is beyond the short look-ahead. */
  #shed(): void {
    if (this.#state !== 'running') return;
    this.#ahead.update(0, true);
    const hosts = this.#buffers.hosts().map((host) => ({
      host,
      size: this.#buffers.hostSize(host),
      cap: this.#hostBufferCap(host, this.#clock.now()),
    }));
    const bound = this.#ahead.room(this.#holds.waitingCount, 0);
    const tasks = [...shedPlan(hosts, bound)].flatMap(([host, n]) => this.#buffers.takeLast(host, n));
    if (tasks.length > 0) void this.#handBack(tasks, 'work_sharing', 0);
  }

  #start(task: Task, permit: Permit): void {
    this.#ahead.started();
    this.#inflight.start(task, permit, (t, result) => {
      this.counters[result]++;
      this.#options.jobGate?.release(t.jobId, t.host);
      // Its links may be for a host the futile lease did not reach: new work, unless for its own host.
      this.kick(!this.#futile.excluded(t.host));
    });
  }

  /** Starts what the job gate and control plane admit; ms until the host may be asked again. */
  async #dispatchHost(host: string, now: number): Promise<number> {
    const buffers = this.#buffers;
    const options = this.#options;
    for (;;) {
      if (buffers.hostSize(host) === 0) return Number.POSITIVE_INFINITY;
      const minLeft = options.minLeaseLeftMs;
      const head = buffers.peek(host);
      if (minLeft !== undefined && head && head.leaseExpiresAt - this.#clock.now() <= minLeft) {
        await this.#handBack([buffers.shift(host)!], 'lease_expiring', 0);
        this.#frontierEmpty = false;
        this.#again = true;
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
        if (!pick) return soonest;
      }
      const adm = this.#control.admit(host, options.fetcherKind?.(pick!.jobId, host));
      if (adm.kind === 'go') {
        buffers.remove(host, pick!);
        gate?.acquire(pick!.jobId, host);
        this.#start(pick!, adm.permit);
        continue;
      }
      if (adm.kind === 'wait') {
        // Count a wait once per host and period, not once per pump that finds it waiting.
        if (this.#holds.wait(host, now, adm.delayMs))
          this.#events.emit('throttled', { host, reason: adm.reason, delayMs: adm.delayMs });
        if (this.#holds.waitingUntil(host, now) !== undefined) this.#buffers.park(host);
        return adm.delayMs;
      }
      if (adm.kind === 'defer') {
        this.#holds.defer(host, now + adm.delayMs);
        await this.#handBack(buffers.take(host), adm.reason, adm.delayMs);
        return adm.delayMs;
      }
      return Number.POSITIVE_INFINITY;
    }
  }

  /** Nothing buffered or in flight: ms until the next delayed task or idle poll, or 'finished' (`--once`). */
  async #idleWake(): Promise<number | 'finished'> {
    let wakeInMs = Number.POSITIVE_INFINITY;
    const next = await this.#frontier.nextReadyAt();
    // Hungry when others hold work (leased), which they hand back when told.
    this.#share?.leased(0, next !== undefined);
    if (next === undefined) {
      if (this.#options.once) {
        const stats = await this.#frontier.stats();
        if (stats.pending === 0 && stats.leased === 0) {
          this.#events.emit('idle', {});
          return 'finished';
        }
      }
      this.#events.emit('idle', {});
    } else {
      wakeInMs = Math.max(0, next - this.#clock.now());
    }
    if (this.#options.idlePollMs > 0) wakeInMs = Math.min(wakeInMs, this.#options.idlePollMs);
    return wakeInMs;
  }

  /** Leased tasks go back unstarted and uncharged (pause, stop, a deferred host, an expiring lease). */
  async #handBack(tasks: readonly Task[], reason: string, delayMs: number): Promise<void> {
    const at = this.#clock.now() + delayMs;
    // All at once: a shared frontier sends one turn's calls in one round trip.
    const replies = await Promise.allSettled(
      tasks.map((t) => this.#frontier.retry(t, { at, reason, chargeAttempt: false })),
    );
    for (const [i, t] of tasks.entries()) {
      const reply = replies[i]!;
      if (reply.status === 'rejected') {
        // Unreachable store: the lease expires and the task comes back by itself.
        this.#events.emit('internalError', { where: 'handBack', error: reply.reason });
        continue;
      }
      this.counters.deferred++;
      this.#events.emit('deferred', { jobId: t.jobId, host: t.host, reason, delayMs });
    }
  }
}
