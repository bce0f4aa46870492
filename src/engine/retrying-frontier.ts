/**
 * A Frontier decorator that waits out a short outage of a remote store (Redis restarting)
 * on the calls that end or feed a task: enqueue, ack, retry, deadLetter. Each is safe to
 * repeat: enqueue dedupes, and ack/retry/deadLetter answer false once the lease token was
 * consumed (by an earlier attempt whose reply was lost, or by another daemon after expiry).
 * Without it, an ack lost in an outage leaves a written record's task leased, and after the
 * lease expires another daemon fetches the page again.
 *
 * Reads and lease() are not retried: the scheduler backs off on a failed lease by itself.
 */
import type { Clock, Timer } from '../core/clock.js';
import type { CrawldError } from '../core/errors.js';
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
} from '../ports/frontier.js';

export interface RetryingFrontierOptions {
  readonly clock: Clock;
  /** Give up (rethrow) after this long; past the lease the call cannot help anyway. */
  readonly maxWaitMs: number;
  /** @default 100 */
  readonly initialDelayMs?: number;
  /** @default 1000 */
  readonly maxDelayMs?: number;
}

export function isRetryable(err: unknown): boolean {
  return (err as Partial<CrawldError> | undefined)?.retryable === true;
}

export class RetryingFrontier implements Frontier {
  readonly #inner: Frontier;
  readonly #o: RetryingFrontierOptions;
  #givenUp = false;
  readonly #wakers = new Set<() => void>();

  constructor(inner: Frontier, options: RetryingFrontierOptions) {
    this.#inner = inner;
    this.#o = options;
  }

  /** From now on calls fail at once, and waits in progress end (shutdown). */
  giveUp(): void {
    this.#givenUp = true;
    for (const wake of this.#wakers) wake();
  }

  open(): Promise<void> {
    return this.#inner.open();
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
  enqueue(requests: readonly EnqueueRequest[]): Promise<EnqueueResult> {
    return this.#retry(() => this.#inner.enqueue(requests));
  }
  lease(options: LeaseOptions): Promise<Task[]> {
    return this.#inner.lease(options);
  }
  ack(task: Task, options?: AckOptions): Promise<boolean> {
    return this.#retry(() => this.#inner.ack(task, options));
  }
  retry(task: Task, options: RetryOptions): Promise<boolean> {
    return this.#retry(() => this.#inner.retry(task, options));
  }
  deadLetter(task: Task, reason: string): Promise<boolean> {
    return this.#retry(() => this.#inner.deadLetter(task, reason));
  }
  /** Not retried: the lease keeper extends again soon, and a lease lost meanwhile is lost. */
  extend(task: Task, leaseMs: number): Promise<boolean> {
    return this.#inner.extend(task, leaseMs);
  }
  stats(): Promise<FrontierStats> {
    return this.#inner.stats();
  }
  nextReadyAt(): Promise<number | undefined> {
    return this.#inner.nextReadyAt();
  }
  listLeased(options?: { owner?: string }): Promise<Task[]> {
    return this.#inner.listLeased(options);
  }
  listDead(options?: { limit?: number; offset?: number; jobId?: string }): Promise<DeadLetter[]> {
    return this.#inner.listDead(options);
  }
  redrive(options?: { ids?: readonly string[]; jobId?: string }): Promise<number> {
    return this.#inner.redrive(options);
  }

  async #retry<T>(call: () => Promise<T>): Promise<T> {
    const { clock } = this.#o;
    const deadline = clock.monotonic() + this.#o.maxWaitMs;
    let delay = this.#o.initialDelayMs ?? 100;
    for (;;) {
      try {
        return await call();
      } catch (err) {
        if (!isRetryable(err) || this.#givenUp || clock.monotonic() + delay > deadline) throw err;
      }
      await this.#sleep(delay);
      delay = Math.min(delay * 2, this.#o.maxDelayMs ?? 1000);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        timer.cancel();
        this.#wakers.delete(wake);
        resolve();
      };
      // Kept alive: a task or the scheduler awaits this call (the store back up), not idle time.
      const timer: Timer = this.#o.clock.setTimer(wake, ms, { keepAlive: true });
      this.#wakers.add(wake);
    });
  }
}
