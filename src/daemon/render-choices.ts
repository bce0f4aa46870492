/**
 * The render decisions of the daemon's `render: { kind: auto }` jobs, one map per job in the
 * store beside the frontier (frontier-types.ts createMapStore('render')). A reload keeps them.
 */
import { StoredRenderDecisions } from '../adapters/shared-map/shared-render-decisions.js';
import type { JobConfig } from '../config/config.js';
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { SharedMapStore } from '../ports/shared-map.js';

export class RenderChoices {
  readonly #jobs = new Map<string, StoredRenderDecisions>();

  readonly #store: SharedMapStore;
  readonly #clock: Clock;
  readonly #events: CrawlEmitter;

  constructor(store: SharedMapStore, clock: Clock, events: CrawlEmitter) {
    this.#store = store;
    this.#clock = clock;
    this.#events = events;
  }

  /** The job's decisions, loaded; undefined for a job that is not kind auto. */
  async forJob(job: JobConfig): Promise<StoredRenderDecisions | undefined> {
    if (job.render.kind !== 'auto') return undefined;
    let decisions = this.#jobs.get(job.id);
    if (!decisions) {
      decisions = new StoredRenderDecisions({
        jobId: job.id,
        store: this.#store,
        now: () => this.#clock.now(),
        onError: (op, error) =>
          this.#events.emit('internalError', { where: `render decisions ${op}`, error }),
        onDecision: (host, decision) =>
          this.#events.emit('renderDecision', { jobId: job.id, host, decision }),
      });
      await decisions.open();
      this.#jobs.set(job.id, decisions);
    }
    return decisions;
  }

  /** [job, host, decision] of every decided host (status page). */
  *decided(): Iterable<readonly [string, string, 'http' | 'browser']> {
    for (const [job, d] of this.#jobs)
      for (const [host, decision] of d.decided()) yield [job, host, decision];
  }

  async close(): Promise<void> {
    await Promise.all([...this.#jobs.values()].map((d) => d.close()));
  }
}
