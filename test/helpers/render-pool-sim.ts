import type { FakeClock } from '../../src/core/clock.js';
import type { ConcurrencyLimiter } from '../../src/core/limiter.js';
import { seededRandom } from './knee-sim.js';

/**
 * A simulated browser pool on our own CPU, the shape measured on the JS demo shop at 50 ms:
 * at most `pages` renders at once (more wait for a page, and that wait is part of the render
 * time the limit sees, as in BrowserFetcher); each render first waits `ioMs` on the network
 * (document and data fetched from the site), then needs `cpuMs` of CPU, the renders in their
 * CPU phase sharing `cores` cores equally (processor sharing), each render past the cores
 * slowing all of them by `contention` more (switching between renderer processes and their
 * caches; measured: 8 pages on one core rendered 0.78 times as many pages per second as 2).
 * So throughput grows with concurrency until the cores are busy, then falls slowly while
 * latency grows: the knee is near cores × (ioMs + cpuMs) / cpuMs. A closed-loop client keeps
 * every permit busy. Time is a FakeClock, stepped `stepMs` at a time.
 */
export interface RenderPoolSimOptions {
  readonly clock: FakeClock;
  readonly limiter: ConcurrencyLimiter;
  readonly pages: number;
  readonly cores: number;
  readonly ioMs: number;
  readonly cpuMs: number;
  /** @default 0 */
  readonly contention?: number;
  readonly durationMs: number;
  /** Multiplicative noise on each render's CPU work: × (1 ± jitter). @default 0 */
  readonly jitter?: number;
  /** @default 5 */
  readonly stepMs?: number;
}

interface Render {
  readonly startedAt: number;
  readonly permit: NonNullable<ReturnType<ConcurrencyLimiter['tryAcquire']>>;
  ioLeft: number;
  cpuLeft: number;
}

/** Renders completed, and the time-weighted mean of the limit. */
export function runRenderPoolSim(o: RenderPoolSimOptions): { completed: number; meanLimit: number } {
  const { clock, limiter } = o;
  const step = o.stepMs ?? 5;
  const random = seededRandom(7);
  const queued: Render[] = [];
  const active: Render[] = [];
  let completed = 0;
  let limitTime = 0;
  const fill = (): void => {
    for (;;) {
      const permit = limiter.tryAcquire();
      if (!permit) return;
      const noise = 1 + (o.jitter ?? 0) * (2 * random() - 1);
      queued.push({ startedAt: clock.monotonic(), permit, ioLeft: o.ioMs, cpuLeft: o.cpuMs * noise });
    }
  };
  const off = limiter.onAvailable(fill);
  fill();
  for (let t = 0; t < o.durationMs; t += step) {
    while (active.length < o.pages && queued.length > 0) active.push(queued.shift()!);
    const computing = active.filter((r) => r.ioLeft <= 0).length;
    const slowdown = 1 + (o.contention ?? 0) * Math.max(0, computing - o.cores);
    const share = computing > 0 ? (Math.min(1, o.cores / computing) * step) / slowdown : 0;
    clock.advance(step);
    limitTime += limiter.limit * step;
    for (let i = active.length - 1; i >= 0; i--) {
      const r = active[i]!;
      if (r.ioLeft > 0) r.ioLeft -= step;
      else r.cpuLeft -= share;
      if (r.ioLeft > 0 || r.cpuLeft > 0) continue;
      active.splice(i, 1);
      completed++;
      r.permit.success({ rttMs: clock.monotonic() - r.startedAt });
    }
  }
  off();
  return { completed, meanLimit: limitTime / o.durationMs };
}
