import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { FakeClock } from '../../src/core/clock.js';
import { AimdLimit, type AimdOptions } from '../../src/core/limit/aimd.js';
import { FixedLimit } from '../../src/core/limit/fixed.js';
import type { LimitAlgorithm } from '../../src/core/limit/limit.js';
import { renderLimitOptions } from '../../src/core/limit/render-limit.js';
import { ConcurrencyLimiter } from '../../src/core/limiter.js';
import { createControlPlane } from '../../src/daemon/control-factory.js';
import { runRenderPoolSim } from '../helpers/render-pool-sim.js';

/** The bench's shape: one core, a pool of 4 (the default under taskset -c 1), 50 ms latency twice. */
const POOL = { pages: 4, cores: 1, ioMs: 60, cpuMs: 220, contention: 0.08, jitter: 0.2 } as const;

function rate(make: (clock: FakeClock) => LimitAlgorithm, pages: number = POOL.pages, durationMs = 60_000) {
  const clock = new FakeClock();
  const limiter = new ConcurrencyLimiter(make(clock), clock);
  const r = runRenderPoolSim({ clock, limiter, ...POOL, pages, durationMs });
  return { perSec: r.completed / (durationMs / 1000), meanLimit: r.meanLimit };
}

describe('renderLimitOptions', () => {
  it('starts a render host at half the pool, never above initialLimit, and probes there', () => {
    expect(renderLimitOptions({}, 8)).toMatchObject({
      initialLimit: 4,
      target: { kind: 'relative', probeLimit: 3 },
    });
    expect(renderLimitOptions({}, 4)).toMatchObject({ initialLimit: 2, target: { probeLimit: 2 } });
    expect(renderLimitOptions({}, 1)).toMatchObject({ initialLimit: 1, target: { probeLimit: 1 } });
    expect(renderLimitOptions({ initialLimit: 2 }, 16).initialLimit).toBe(2);
    // Within the host bounds, whatever the pool.
    expect(renderLimitOptions({ minLimit: 3, maxLimit: 10 }, 4).initialLimit).toBe(3);
    expect(renderLimitOptions({ minLimit: 1, maxLimit: 2, initialLimit: 2 }, 32).initialLimit).toBe(2);
    // An absolute target has no probes; the rest of the options are the host's.
    const absolute: AimdOptions = { target: { kind: 'absolute', latencyMs: 500 }, windowMs: 300 };
    expect(renderLimitOptions(absolute, 8)).toEqual({ ...absolute, initialLimit: 4 });
    // The result is valid AIMD options.
    expect(new AimdLimit(renderLimitOptions({}, 4), new FakeClock()).limit).toBe(2);
  });
});

describe('a render host on a CPU-bound pool (fake clock)', () => {
  it('finds the knee from half the pool; the http start stays past the pool', () => {
    const fixed = [1, 2, 4, 8].map((n) => rate(() => new FixedLimit(n), n).perSec);
    const best = Math.max(...fixed);
    const http = rate((clock) => new AimdLimit({}, clock));
    const render = rate((clock) => new AimdLimit(renderLimitOptions({}, POOL.pages), clock));
    // Fixed 1/2/4/8: 3.5/4.0/3.6/2.9 pages/s (the bench measured 3.6/4.0/3.6/3.1).
    expect(fixed[1]).toBe(best);
    expect(render.perSec).toBeGreaterThanOrEqual(0.95 * best);
    // From half the pool the limit stays near the knee (2)...
    expect(render.meanLimit).toBeGreaterThanOrEqual(1.5);
    expect(render.meanLimit).toBeLessThan(3.5);
    // ...where the http start, probing its baseline at 8 against a pool of 4, sat past the
    // pool's cap, every extra task waiting for a page.
    expect(http.meanLimit).toBeGreaterThan(POOL.pages);
    expect(http.perSec).toBeLessThan(render.perSec);
  });
});

describe('the control plane of a config', () => {
  const plane = (config: Record<string, unknown>) =>
    createControlPlane(
      validateConfig({ jobs: [{ id: 'j', seeds: ['http://a.test/'] }], ...config }),
      new FakeClock(),
      () => 0.5,
    ).control;
  const admitted = (control: ReturnType<typeof plane>, host: string, kind?: 'http' | 'browser') => {
    let n = 0;
    while (control.admit(host, kind).kind === 'go') n++;
    return n;
  };

  it("admits a render host's first requests up to half fetch.browser.maxPages, an http host's to initialPerHost", () => {
    const control = plane({ fetch: { browser: { maxPages: 6 } } });
    expect(admitted(control, 'shop.test', 'browser')).toBe(3);
    expect(admitted(control, 'api.test', 'http')).toBe(8);
    expect(admitted(control, 'other.test')).toBe(8);
  });

  it('keeps a fixed limit fixed for every kind (concurrency.adaptive false)', () => {
    const control = plane({
      fetch: { browser: { maxPages: 6 } },
      concurrency: { adaptive: false, maxPerHost: 5 },
    });
    expect(admitted(control, 'shop.test', 'browser')).toBe(5);
  });
});
