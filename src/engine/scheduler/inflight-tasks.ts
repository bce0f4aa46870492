/** Started tasks: a task whose lease was lost is aborted, since another daemon may fetch it now. */
import type { Clock } from '../../core/clock.js';
import type { CrawlEmitter } from '../../core/events.js';
import type { Permit } from '../../ports/control-plane.js';
import type { Frontier, Task } from '../../ports/frontier.js';
import type { TaskResult, TaskRunner } from '../task/task-runner.js';
import { LeaseKeeper } from './lease-keeper.js';

export interface InflightLeases {
  readonly frontier: Pick<Frontier, 'extend'>;
  readonly clock: Clock;
  readonly leaseMs: number;
}

export class InflightTasks {
  readonly #tasks = new Map<Task, { abort: AbortController; done: Promise<void> }>();
  readonly #keeper: LeaseKeeper;

  readonly #runner: TaskRunner;
  readonly #events: CrawlEmitter;

  constructor(runner: TaskRunner, events: CrawlEmitter, leases: InflightLeases) {
    this.#runner = runner;
    this.#events = events;
    this.#keeper = new LeaseKeeper({
      ...leases,
      onLost: (task) => {
        this.#events.emit('internalError', {
          where: 'lease',
          error: new Error(
            `lease of a task on ${task.host} lost while it ran (expired, leased again): aborted`,
          ),
        });
        this.#tasks.get(task)?.abort.abort();
      },
      onError: (error) => this.#events.emit('internalError', { where: 'leaseExtend', error }),
    });
  }

  get size(): number {
    return this.#tasks.size;
  }

  start(task: Task, permit: Permit, ended: (task: Task, result: TaskResult) => void): void {
    const abort = new AbortController();
    const done = this.#runner
      .run(task, permit, abort.signal)
      .catch((err): TaskResult => {
        // The frontier or a sink failed mid-task: the lease expires and the task comes back.
        permit.release({ kind: 'ignore' });
        this.#events.emit('internalError', { where: 'task', error: err });
        return 'lost';
      })
      .then((result) => {
        this.#tasks.delete(task);
        this.#keeper.untrack(task);
        ended(task, result);
      });
    this.#tasks.set(task, { abort, done });
    this.#keeper.track(task);
  }

  stopKeeping(): void {
    this.#keeper.stop();
  }

  /** How many it aborted after drainMs. */
  async drain(clock: Clock, drainMs: number): Promise<number> {
    const all = Promise.all([...this.#tasks.values()].map((f) => f.done));
    let aborted = 0;
    const deadline = new Promise<'timeout'>((resolve) => clock.setTimer(() => resolve('timeout'), drainMs));
    if ((await Promise.race([all.then(() => 'done' as const), deadline])) === 'timeout') {
      for (const f of this.#tasks.values()) {
        aborted++;
        f.abort.abort();
      }
      await all;
    }
    return aborted;
  }
}
