/**
 * The trap defences of the daemon's jobs (engine/job/trap-guard.ts), their decisions in one map per
 * job in the store beside the frontier (frontier-types.ts createMapStore('traps')). A reload
 * keeps a job's memory unless its trap options changed (then what is stored is read again).
 */
import { StoredTrapMemory } from '../adapters/shared-map/shared-trap-memory.js';
import type { JobConfig } from '../config/config.js';
import { trapOptionsOf } from '../config/schema/traps-schema.js';
import type { Clock } from '../core/clock.js';
import type { CrawlEmitter } from '../core/events.js';
import type { TrapOptions } from '../core/traps/trap-options.js';
import { TrapGuard } from '../engine/job/trap-guard.js';
import type { SharedMapStore } from '../ports/shared-map.js';

export class TrapMemories {
  readonly #jobs = new Map<string, { options: string; memory: StoredTrapMemory; guard: TrapGuard }>();

  readonly #store: SharedMapStore;
  readonly #clock: Clock;
  readonly #events: CrawlEmitter;

  constructor(store: SharedMapStore, clock: Clock, events: CrawlEmitter) {
    this.#store = store;
    this.#clock = clock;
    this.#events = events;
  }

  /** The job's guard, its memory loaded; undefined when every defence but session ids is off. */
  async forJob(job: JobConfig): Promise<TrapGuard | undefined> {
    const options = trapOptionsOf(job.traps);
    if (!guarded(options)) return undefined;
    const key = JSON.stringify(options);
    const known = this.#jobs.get(job.id);
    if (known?.options === key) return known.guard;
    await known?.memory.close();
    const memory = new StoredTrapMemory({
      jobId: job.id,
      store: this.#store,
      options,
      now: () => this.#clock.now(),
      onError: (op, error) => this.#events.emit('internalError', { where: `trap memory ${op}`, error }),
    });
    await memory.open();
    const guard = new TrapGuard({ jobId: job.id, options, memory, events: this.#events });
    this.#jobs.set(job.id, { options: key, memory, guard });
    return guard;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#jobs.values()].map((j) => j.memory.close()));
  }
}

/** Session ids alone need no guard: they are a rule of the key (core/url.ts). */
function guarded(o: TrapOptions): boolean {
  return o.learnParams || o.repeatedPaths || o.nearDuplicates || o.soft404;
}
