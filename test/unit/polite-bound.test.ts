/**
 * The politeness memory of the control plane is bounded (idle hosts are forgotten past
 * POLITE_HOSTS), but a host inside its gap is never forgotten: a crawl over more hosts than
 * the bound must not let a host's next request go before minDelayMs.
 */
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../src/config/config.js';
import { FakeClock } from '../../src/core/clock.js';
import { createControlPlane } from '../../src/daemon/control-factory.js';
import { POLITE_HOSTS } from '../../src/engine/control/adaptive-control-plane.js';

const ok = { kind: 'success', ttfbMs: 5, lagMs: 0 } as const;

function admitAndFinish(control: ReturnType<typeof createControlPlane>['control'], host: string) {
  const a = control.admit(host);
  if (a.kind === 'go') a.permit.release(ok);
  return a.kind;
}

describe('politeness memory', () => {
  it('keeps every host inside its gap past the bound, and forgets idle hosts once their gap passed', () => {
    const clock = new FakeClock();
    const config = validateConfig({ politeness: { minDelayMs: 500 } });
    const { control } = createControlPlane(config, clock, () => 0.5);
    expect(admitAndFinish(control, 'first.example')).toBe('go');
    // More hosts than the bound start within first.example's gap.
    for (let i = 0; i < POLITE_HOSTS + 10; i++) expect(admitAndFinish(control, `h${i}.example`)).toBe('go');
    clock.advance(100);
    expect(control.admit('first.example')).toMatchObject({
      kind: 'wait',
      reason: 'politeness',
      delayMs: 400,
    });
    clock.advance(400);
    expect(admitAndFinish(control, 'first.example')).toBe('go');
    // Gaps over: new hosts push the idle ones out; a host started just now still waits.
    for (let i = 0; i < POLITE_HOSTS + 10; i++) expect(admitAndFinish(control, `n${i}.example`)).toBe('go');
    expect(control.admit(`n${POLITE_HOSTS + 9}.example`)).toMatchObject({
      kind: 'wait',
      reason: 'politeness',
    });
  });
});
