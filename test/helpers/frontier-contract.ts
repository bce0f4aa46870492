import { afterEach } from 'vitest';
import { FakeClock } from '../../src/core/clock.js';
import type { EnqueueRequest, Frontier, LeaseOptions, Task } from '../../src/ports/frontier.js';

export type MakeFrontier = (
  clock: FakeClock,
  opts: { maxPending?: number },
) => Promise<{ frontier: Frontier; cleanup(): Promise<void> }>;

export const LEASE_MS = 60_000;

/** Registers cleanup with the current describe block; returns a per-test factory of open frontiers. */
export function useFrontier(make: MakeFrontier) {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });
  return async (opts: { maxPending?: number } = {}) => {
    const clock = new FakeClock();
    const { frontier, cleanup } = await make(clock, opts);
    cleanups.push(cleanup);
    await frontier.open();
    return { f: frontier, clock };
  };
}

export const url = (path: string, host = 'example.com') => `http://${host}/${path}`;

export const req = (path: string, extra: Partial<EnqueueRequest> = {}): EnqueueRequest => ({
  url: url(path),
  jobId: 'job1',
  ...extra,
});

export const lease = (f: Frontier, max = 100, extra: Partial<LeaseOptions> = {}) =>
  f.lease({ max, leaseMs: LEASE_MS, owner: 'worker-1', ...extra });

/** The path of each task's URL without the leading slash: compact to assert on. */
export const paths = (tasks: readonly Task[]) => tasks.map((t) => new URL(t.url).pathname.slice(1));

/** Leases exactly one task and fails loudly otherwise. */
export async function leaseOne(f: Frontier): Promise<Task> {
  const tasks = await lease(f, 1);
  const task = tasks[0];
  if (!task) throw new Error('expected a task to lease');
  return task;
}
