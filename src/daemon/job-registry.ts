import type { JobConfig } from '../config/config.js';

/** How a registry makes one job's state and lets it go. */
export interface JobStateFactory<T> {
  /** Undefined: the job has none. A changed key (a reload changed its options) makes the state again. */
  keyOf(job: JobConfig): string | undefined;
  open(job: JobConfig): Promise<T>;
  release(state: T): Promise<void>;
}

/** One state per job, kept across reloads while the job's key holds. */
export class JobRegistry<T> {
  readonly #states = new Map<string, { key: string; state: T }>();
  readonly #factory: JobStateFactory<T>;

  constructor(factory: JobStateFactory<T>) {
    this.#factory = factory;
  }

  async forJob(job: JobConfig): Promise<T | undefined> {
    const key = this.#factory.keyOf(job);
    if (key === undefined) return undefined;
    const known = this.#states.get(job.id);
    if (known?.key === key) return known.state;
    if (known) await this.#factory.release(known.state);
    const state = await this.#factory.open(job);
    this.#states.set(job.id, { key, state });
    return state;
  }

  *entries(): Iterable<readonly [string, T]> {
    for (const [id, e] of this.#states) yield [id, e.state];
  }

  async close(): Promise<void> {
    await Promise.all([...this.#states.values()].map((e) => this.#factory.release(e.state)));
  }
}
