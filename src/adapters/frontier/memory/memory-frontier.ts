/** In-process frontier (tests, demos, one-shot crawls) with the SQLite adapter's semantics; close() keeps the data. */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../../core/clock.js';
import type {
  AckOptions,
  DeadLetter,
  EnqueueRequest,
  EnqueueResult,
  Frontier,
  FrontierStats,
  LeaseOptions,
  RetryOptions,
  Task,
} from '../../../ports/frontier.js';
import {
  checkLeaseOptions,
  checkMaxPending,
  makeTask,
  notOpenError,
  prepareRequests,
} from '../frontier-common.js';
import { PendingQueue, type Rec } from './queue.js';

export interface MemoryFrontierOptions {
  clock: Clock;
  /** Bound on pending (ready + delayed) tasks; unbounded when omitted. */
  maxPending?: number;
}

export class MemoryFrontier implements Frontier {
  readonly #clock: Clock;
  readonly #maxPending: number;
  #open = false;
  #nextId = 1;
  #nextSeq = 1;
  readonly #byKey = new Map<string, Rec>();
  readonly #byId = new Map<number, Rec>();
  readonly #pending = new PendingQueue();
  readonly #leased = new Map<number, Rec>();
  readonly #dead = new Map<number, Rec>();
  #done = 0;

  constructor(options: MemoryFrontierOptions) {
    this.#clock = options.clock;
    this.#maxPending = checkMaxPending(options.maxPending);
  }

  async open(): Promise<void> {
    this.#open = true;
  }

  async close(): Promise<void> {
    this.#open = false;
  }

  async enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult> {
    this.#check();
    const now = this.#clock.now();
    const prepared = prepareRequests(requests, now);
    let added = 0;
    let duplicates = 0;
    let dropped = 0;
    for (const r of prepared) {
      const key = `${r.jobId}\n${r.url}`;
      const existing = this.#byKey.get(key);
      if (existing) {
        if (r.force && (existing.state === 'done' || existing.state === 'dead')) {
          this.#leaveFinal(existing);
          existing.priority = r.priority;
          existing.depth = r.depth;
          existing.attempts = 0;
          existing.generation += 1;
          existing.lastError = undefined;
          this.#makePending(existing, r.notBefore, now);
          added++;
        } else {
          duplicates++;
        }
        continue;
      }
      if (!r.force && this.#pending.size >= this.#maxPending) {
        dropped++;
        continue;
      }
      const rec: Rec = {
        id: this.#nextId++,
        url: r.url,
        requestUrl: r.requestUrl,
        host: r.host,
        jobId: r.jobId,
        priority: r.priority,
        depth: r.depth,
        state: 'ready',
        notBefore: r.notBefore,
        seq: 0,
        attempts: 0,
        generation: 0,
      };
      this.#byKey.set(key, rec);
      this.#byId.set(rec.id, rec);
      this.#makePending(rec, r.notBefore, now);
      added++;
    }
    return { added, duplicates, dropped };
  }

  async lease(options: LeaseOptions): Promise<Task[]> {
    this.#check();
    checkLeaseOptions(options);
    const now = this.#clock.now();
    for (const rec of this.#leased.values()) {
      if (rec.leaseExpiresAt! > now) continue;
      // Expired leases keep their seq and attempts: the task resumes its place in line.
      this.#releaseLease(rec);
      this.#pending.add(rec, now);
    }
    this.#pending.promote(now);
    const expiresAt = now + options.leaseMs;
    return this.#pending.take(options.max, options.excludeHosts).map((rec) => {
      rec.state = 'leased';
      rec.leaseToken = randomUUID();
      rec.leaseOwner = options.owner;
      rec.leaseExpiresAt = expiresAt;
      this.#leased.set(rec.id, rec);
      return this.#toTask(rec);
    });
  }

  async ack(task: Task, options?: AckOptions): Promise<boolean> {
    const rec = this.#leasedBy(task);
    if (!rec) return false;
    this.#releaseLease(rec);
    if (options?.recrawlAt !== undefined) {
      rec.generation += 1;
      rec.attempts = 0;
      rec.lastError = undefined;
      this.#makePending(rec, options.recrawlAt, this.#clock.now());
    } else {
      rec.state = 'done';
      this.#done++;
    }
    return true;
  }

  async retry(task: Task, options: RetryOptions): Promise<boolean> {
    const rec = this.#leasedBy(task);
    if (!rec) return false;
    this.#releaseLease(rec);
    if (options.chargeAttempt) rec.attempts += 1;
    rec.lastError = options.reason;
    this.#makePending(rec, options.at, this.#clock.now());
    return true;
  }

  async deadLetter(task: Task, reason: string): Promise<boolean> {
    const rec = this.#leasedBy(task);
    if (!rec) return false;
    this.#releaseLease(rec);
    rec.attempts += 1;
    rec.lastError = reason;
    rec.state = 'dead';
    rec.deadAt = this.#clock.now();
    rec.deadReason = reason;
    this.#dead.set(rec.id, rec);
    return true;
  }

  async extend(task: Task, leaseMs: number): Promise<boolean> {
    const rec = this.#leasedBy(task);
    if (!rec) return false;
    rec.leaseExpiresAt = this.#clock.now() + leaseMs;
    return true;
  }

  async stats(): Promise<FrontierStats> {
    this.#check();
    return {
      pending: this.#pending.size,
      delayed: this.#pending.delayedCount(this.#clock.now()),
      leased: this.#leased.size,
      done: this.#done,
      dead: this.#dead.size,
      pendingByPriority: this.#pending.countsByPriority(),
    };
  }

  async nextReadyAt(): Promise<number | undefined> {
    this.#check();
    // As in SQLite: the ready head stands for all ready tasks (any means "now").
    const times = this.#pending.headTimes();
    for (const rec of this.#leased.values()) times.push(rec.leaseExpiresAt!);
    return times.length ? Math.min(...times) : undefined;
  }

  async listLeased(options?: { owner?: string }): Promise<Task[]> {
    this.#check();
    return [...this.#leased.values()]
      .filter((rec) => options?.owner === undefined || rec.leaseOwner === options.owner)
      .sort((a, b) => a.id - b.id)
      .map((rec) => this.#toTask(rec));
  }

  async listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]> {
    this.#check();
    const offset = options?.offset ?? 0;
    const limit = options?.limit ?? Number.POSITIVE_INFINITY;
    return [...this.#dead.values()]
      .filter((rec) => options?.jobId === undefined || rec.jobId === options.jobId)
      .sort((a, b) => a.deadAt! - b.deadAt! || a.id - b.id)
      .slice(offset, offset + limit)
      .map((rec) => ({
        id: String(rec.id),
        url: rec.url,
        ...(rec.requestUrl !== undefined ? { requestUrl: rec.requestUrl } : {}),
        jobId: rec.jobId,
        priority: rec.priority,
        depth: rec.depth,
        attempts: rec.attempts,
        reason: rec.deadReason!,
        deadAt: rec.deadAt!,
      }));
  }

  async redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number> {
    this.#check();
    const now = this.#clock.now();
    const candidates = options?.ids
      ? options.ids.map((id) => this.#dead.get(Number(id))).filter((rec) => rec !== undefined)
      : [...this.#dead.values()].sort((a, b) => a.deadAt! - b.deadAt! || a.id - b.id);
    let moved = 0;
    for (const rec of candidates) {
      if (options?.jobId !== undefined && rec.jobId !== options.jobId) continue;
      if (rec.state !== 'dead') continue; // the same id listed twice
      this.#leaveFinal(rec);
      rec.attempts = 0;
      this.#makePending(rec, now, now);
      moved++;
    }
    return moved;
  }

  #check(): void {
    if (!this.#open) throw notOpenError();
  }

  /** Every (re)entry into the queue takes a fresh seq: FIFO is by enqueue order. */
  #makePending(rec: Rec, notBefore: number, now: number): void {
    rec.notBefore = notBefore;
    rec.seq = this.#nextSeq++;
    this.#pending.add(rec, now);
  }

  #leaveFinal(rec: Rec): void {
    if (rec.state === 'done') this.#done--;
    else if (rec.state === 'dead') this.#dead.delete(rec.id);
    rec.deadAt = undefined;
    rec.deadReason = undefined;
  }

  #leasedBy(task: Task): Rec | undefined {
    this.#check();
    const rec = this.#byId.get(Number(task.id));
    return rec?.state === 'leased' && rec.leaseToken === task.leaseToken ? rec : undefined;
  }

  #releaseLease(rec: Rec): void {
    this.#leased.delete(rec.id);
    rec.leaseToken = undefined;
    rec.leaseOwner = undefined;
    rec.leaseExpiresAt = undefined;
  }

  #toTask(rec: Rec): Task {
    return makeTask({
      id: String(rec.id),
      url: rec.url,
      requestUrl: rec.requestUrl,
      host: rec.host,
      jobId: rec.jobId,
      priority: rec.priority,
      depth: rec.depth,
      attempts: rec.attempts,
      generation: rec.generation,
      leaseToken: rec.leaseToken!,
      leaseExpiresAt: rec.leaseExpiresAt!,
      lastError: rec.lastError,
    });
  }
}
