import { type Bound, POSITIVE_INT } from './bound.js';
import { checkNumber } from './check.js';
import type { Clock } from './clock.js';
import { TOKEN_BUCKET_BOUNDS, TokenBucket } from './token-bucket.js';

export interface JobLimits {
  /** Per host. */
  readonly maxConcurrency?: number;
  /** Per host. */
  readonly ratePerSec?: number;
  /** @default max(1, ratePerSec) */
  readonly burst?: number;
}

export const JOB_LIMIT_BOUNDS = Object.freeze({
  maxConcurrency: POSITIVE_INT,
  ...TOKEN_BUCKET_BOUNDS,
} as const satisfies Record<keyof JobLimits, Bound>);

interface Lane {
  inflight: number;
  readonly bucket: TokenBucket | undefined;
}

/** Per-job limits per (job, host) lane: a job polling an API gets exactly its rate there. Idle full lanes are dropped. */
export class JobGate {
  readonly #clock: Clock;
  #limits: ReadonlyMap<string, JobLimits>;
  readonly #lanes = new Map<string, Lane>();

  constructor(limits: ReadonlyMap<string, JobLimits>, clock: Clock) {
    for (const [job, l] of limits) validate(job, l);
    this.#limits = limits;
    this.#clock = clock;
  }

  get active(): boolean {
    return this.#limits.size > 0;
  }

  update(limits: ReadonlyMap<string, JobLimits>): void {
    for (const [job, l] of limits) validate(job, l);
    this.#limits = limits;
    for (const [key, lane] of this.#lanes) if (lane.inflight === 0) this.#lanes.delete(key);
  }

  /** 0: may start now; ms until a rate token; Infinity while the job's concurrency there is full. */
  waitMs(jobId: string, host: string): number {
    const limits = this.#limits.get(jobId);
    if (!limits) return 0;
    const lane = this.#lanes.get(laneKey(jobId, host));
    if (!lane) return 0;
    if (limits.maxConcurrency !== undefined && lane.inflight >= limits.maxConcurrency) {
      return Number.POSITIVE_INFINITY;
    }
    return lane.bucket?.waitMs() ?? 0;
  }

  acquire(jobId: string, host: string): void {
    const limits = this.#limits.get(jobId);
    if (!limits) return;
    const key = laneKey(jobId, host);
    let lane = this.#lanes.get(key);
    if (!lane) {
      const bucket =
        limits.ratePerSec === undefined
          ? undefined
          : new TokenBucket(
              { ratePerSec: limits.ratePerSec, ...(limits.burst ? { burst: limits.burst } : {}) },
              this.#clock,
            );
      lane = { inflight: 0, bucket };
      this.#lanes.set(key, lane);
    }
    lane.inflight++;
    lane.bucket?.tryTake();
  }

  release(jobId: string, host: string): void {
    const key = laneKey(jobId, host);
    const lane = this.#lanes.get(key);
    if (!lane) return;
    lane.inflight = Math.max(0, lane.inflight - 1);
    if (lane.inflight === 0 && (!lane.bucket || lane.bucket.tokens >= lane.bucket.burst))
      this.#lanes.delete(key);
  }
}

function laneKey(jobId: string, host: string): string {
  return `${jobId}\n${host}`;
}

function validate(job: string, l: JobLimits): void {
  for (const [option, bound] of Object.entries(JOB_LIMIT_BOUNDS)) {
    const value = l[option as keyof JobLimits];
    if (value !== undefined) checkNumber(`${job}.${option}`, value, bound);
  }
}
