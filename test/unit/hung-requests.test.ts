/**
 * What the control plane does with a request given up at its host's learned timeout (outcome
 * `hung`, issue 44), on the fake clock with the daemon's own control plane: the breaker counts
 * it when it is given up, as having failed when it was sent; the limit is not cut while the
 * breaker stays closed (a tail of hangs is no overload); a host that answered nothing since the
 * hung request was sent gets one probe in flight, not its window.
 */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { FakeClock } from '../../src/core/clock.js';
import type { LimitSample } from '../../src/core/limit/limit.js';
import { HostLimiters } from '../../src/core/limiter.js';
import { createControlPlane } from '../../src/daemon/control-factory.js';
import type { Admission, Permit } from '../../src/ports/control-plane.js';

const HOST = 'site.test';
const ok = { kind: 'success', ttfbMs: 50, lagMs: 0 } as const;

function setup(config: Parameters<typeof validateConfig>[0] = {}) {
  const clock = new FakeClock();
  const built = createControlPlane(validateConfig(config), clock, () => 0.5);
  const go = (): Permit => {
    const a: Admission = built.control.admit(HOST);
    if (a.kind !== 'go') throw new Error(`expected go, got ${a.kind}`);
    a.permit.requestStarting?.();
    return a.permit;
  };
  return { clock, ...built, go };
}

describe('a hung request in the control plane', () => {
  it('leaves the limit alone while the breaker stays closed, and counts for the breaker', () => {
    const { control, breakers, go } = setup();
    const limit = control.hostLimit(HOST);
    const permits = Array.from({ length: 4 }, go);
    for (const p of permits) p.release({ kind: 'hung' });
    expect(control.hostLimit(HOST)).toBe(limit);
    expect(breakers.get(HOST).state).toBe('closed');
    // A fifth in a row trips it, as five 500s do.
    go().release({ kind: 'hung' });
    expect(breakers.get(HOST).state).toBe('open');
  });

  it('gives a host that answered nothing since one probe in flight, until an answer comes', () => {
    const { clock, control, go } = setup();
    const a = go();
    const b = go();
    clock.advance(250);
    // Nothing came back since either was sent: the host may be hanging everything.
    a.release({ kind: 'hung' });
    expect(control.admit(HOST).kind).toBe('full');
    b.release({ kind: 'hung' });
    const probe = go();
    expect(control.admit(HOST).kind).toBe('full');
    clock.advance(50);
    probe.release(ok);
    // It answered: the whole window again.
    const more = Array.from({ length: 6 }, go);
    expect(more).toHaveLength(6);
  });

  it('never trips the breaker on hangs of a host that answers the others (a tail), however many expire together', () => {
    const { clock, breakers, go } = setup({ concurrency: { initialPerHost: 16 } });
    // A burst of sends, of which six hang; answers come for the rest, then the six expire
    // together: six failures in a row, but under half of the calls.
    const hung = Array.from({ length: 6 }, go);
    const answered = Array.from({ length: 10 }, go);
    clock.advance(50);
    for (const p of answered) p.release(ok);
    clock.advance(200);
    for (const p of hung) p.release({ kind: 'hung' });
    expect(breakers.get(HOST).state).toBe('closed');
  });

  it('keeps the window of a host that answered since the hung request was sent (a tail, not a hang)', () => {
    const { clock, control, go } = setup();
    const hung = go();
    const answered = go();
    clock.advance(50);
    answered.release(ok);
    clock.advance(200);
    hung.release({ kind: 'hung' });
    expect(Array.from({ length: 6 }, go)).toHaveLength(6);
    expect(control.admit(HOST).kind).not.toBe('defer');
  });

  it('opens the breaker as from when the hung request was sent: the probe goes 1 s after that, not after the timeout', () => {
    const { clock, control, breakers, go } = setup();
    const permits = Array.from({ length: 5 }, go);
    clock.advance(250);
    for (const p of permits) p.release({ kind: 'hung' });
    expect(breakers.get(HOST).state).toBe('open');
    // Open 1 s from their sending: 0.75 s left now.
    expect(control.breakerRetryInMs(HOST)).toBe(750);
    clock.advance(750);
    const probe = go();
    // The probe hangs too: open 2 s from its sending, 1.5 s after its timeout noticed it.
    clock.advance(500);
    probe.release({ kind: 'hung' });
    expect(breakers.get(HOST).state).toBe('open');
    expect(control.breakerRetryInMs(HOST)).toBe(1500);
  });
});

describe('LimiterPermit.hung', () => {
  it('is a drop for the algorithm only when told it is an overload', () => {
    const clock = new FakeClock();
    const cuts: number[] = [];
    const hosts = new HostLimiters(
      {
        createLimit: () => ({
          limit: 8,
          onSample: (s: LimitSample) => {
            if (s.dropped) cuts.push(s.inflight);
          },
          onChange: () => () => {},
        }),
      },
      clock,
    );
    hosts.tryAcquire(HOST)!.hung(false);
    expect(cuts).toEqual([]);
    hosts.tryAcquire(HOST)!.hung(true);
    expect(cuts).toEqual([1]);
    expect(hosts.stalled(HOST)).toBe(true);
    expect(hosts.hasRoom(HOST)).toBe(true);
    const probe = hosts.tryAcquire(HOST)!;
    expect(hosts.hasRoom(HOST)).toBe(false);
    expect(hosts.tryAcquire(HOST)).toBeUndefined();
    probe.success();
    expect(hosts.stalled(HOST)).toBe(false);
  });
});
