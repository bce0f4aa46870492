/**
 * `render: { kind: auto }` per host, pure. A host samples pages both ways; all agree: http, re-checked now and then
 * (less often while it agrees); any disagreement, or a required field only the browser finds: browser for good.
 */
import type { Bound } from './bound.js';
import { checkNumber } from './check.js';

export type RenderDecision = 'learning' | 'http' | 'browser';
export type RenderPath = 'http' | 'browser' | 'both';

export interface RenderChoiceOptions {
  /** @default 3 */
  readonly samplePages: number;
  /** @default 20 */
  readonly recheckEvery: number;
}

export const renderChoiceDefaults: RenderChoiceOptions = Object.freeze({ samplePages: 3, recheckEvery: 20 });

export const RECHECK_BACKOFF_MAX = 16;

export const RENDER_CHOICE_BOUNDS = Object.freeze({
  samplePages: { min: 1, max: 1000, integer: true },
  recheckEvery: { min: 2, max: 1_000_000, integer: true },
} as const satisfies Record<keyof RenderChoiceOptions, Bound>);

export function checkRenderChoiceOptions(o: RenderChoiceOptions): RenderChoiceOptions {
  checkNumber('samplePages', o.samplePages, RENDER_CHOICE_BOUNDS.samplePages);
  checkNumber('recheckEvery', o.recheckEvery, RENDER_CHOICE_BOUNDS.recheckEvery);
  return o;
}

export interface HostRender {
  readonly decision: RenderDecision;
  readonly agreed: number;
  readonly sinceCheck: number;
  /** recheckEvery, doubled by each agreeing re-check. */
  readonly checkEvery?: number;
}

export const LEARNING: HostRender = Object.freeze({ decision: 'learning', agreed: 0, sinceCheck: 0 });

export type Disagreement = 'sample' | 'recheck' | 'missing_field';

export function nextPath(state: HostRender, o: RenderChoiceOptions): { path: RenderPath; state: HostRender } {
  switch (state.decision) {
    case 'learning':
      return { path: 'both', state };
    case 'browser':
      return { path: 'browser', state };
    case 'http': {
      const since = state.sinceCheck + 1;
      if (since >= (state.checkEvery ?? o.recheckEvery))
        return { path: 'both', state: { ...state, sinceCheck: 0 } };
      return { path: 'http', state: { ...state, sinceCheck: since } };
    }
  }
}

export function afterCompare(state: HostRender, agree: boolean, o: RenderChoiceOptions): HostRender {
  if (state.decision === 'browser') return state;
  if (!agree) return { decision: 'browser', agreed: state.agreed, sinceCheck: 0 };
  if (state.decision === 'http') {
    const every = Math.min((state.checkEvery ?? o.recheckEvery) * 2, o.recheckEvery * RECHECK_BACKOFF_MAX);
    return { ...state, checkEvery: every };
  }
  const agreed = state.agreed + 1;
  return agreed >= o.samplePages ? { decision: 'http', agreed, sinceCheck: 0 } : { ...state, agreed };
}

/** The browser was busy: the host's next page is re-checked instead. */
export function postponeCheck(state: HostRender, o: RenderChoiceOptions): HostRender {
  if (state.decision !== 'http') return state;
  return { ...state, sinceCheck: Math.max(0, (state.checkEvery ?? o.recheckEvery) - 1) };
}

export function afterMiss(state: HostRender): HostRender {
  return { decision: 'browser', agreed: state.agreed, sinceCheck: 0 };
}
