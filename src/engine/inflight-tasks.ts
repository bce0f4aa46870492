/**
 * The tasks the scheduler has started and not yet seen end: each runs with its own abort
 * signal, a task that throws (frontier or sink failure) counts as lost, and a drain gives
 * them all until a deadline before aborting the rest.
 */
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { Permit } from '../ports/control-plane.js';
import type { Task } from '../ports/frontier.js';
import type { TaskResult, TaskRunner } from './task-runner.js';

export class InflightTasks {
  readonly #tasks = new Map<Task, { abort: AbortController; done: Promise<void> }>();

  constructor(
    private readonly runner: TaskRunner,
    private readonly events: CrawlEmitter,
  ) {}

  get size(): number {
    return this.#tasks.size;
  }

  /** Runs the task; `ended` hears its result once it is no longer in flight. */
  start(task: Task, permit: Permit, ended: (task: Task, result: TaskResult) => void): void {
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
        this.#tasks.delete(task);
        ended(task, result);
      });
    this.#tasks.set(task, { abort, done });
  }

  /** Waits for every task to end, aborting those still running after drainMs; how many it aborted. */
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
