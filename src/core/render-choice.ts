/**
 * `render: { kind: auto }`: for each host, whether plain HTTP gets what the job extracts or the
 * page needs a browser. Pure: the state of one host in, the path of its next page and its next
 * state out; the engine (engine/task/auto-render.ts) fetches, extracts and compares.
 *
 * A host starts `learning`: its first `samplePages` pages are fetched both ways and their
 * extractions compared. All agree: the host is decided `http`, and one page in `recheckEvery`
 * is still fetched both ways, to catch a site that starts to need JavaScript; each re-check that
 * agrees doubles that interval, up to RECHECK_BACKOFF_MAX times recheckEvery, so a host that
 * keeps agreeing costs fewer renders (a required field going missing is caught on any page,
 * whatever the interval: afterMiss). One disagrees
 * (in the sample or a re-check), or a page fetched over HTTP misses a required field that the
 * browser then finds: the host is decided `browser` for good.
 */
import type { Bound } from './bound.js';
import { checkNumber } from './check.js';

export type RenderDecision = 'learning' | 'http' | 'browser';
/** How one page is fetched: HTTP only, the browser only, or both (sample and re-check). */
export type RenderPath = 'http' | 'browser' | 'both';

export interface RenderChoiceOptions {
  /** Pages of a new host fetched both ways before it is decided. @default 3 */
  readonly samplePages: number;
  /** On a host decided `http`, one page in this many is also rendered and compared. @default 20 */
  readonly recheckEvery: number;
}

export const renderChoiceDefaults: RenderChoiceOptions = Object.freeze({ samplePages: 3, recheckEvery: 20 });

/** An agreeing host's re-check interval grows to at most this many times recheckEvery. */
export const RECHECK_BACKOFF_MAX = 16;

/** The option table's bounds, for the config schema and the check below. */
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
  /** Sample pages that agreed (learning). */
  readonly agreed: number;
  /** Pages fetched over HTTP since the last re-check (decided http). */
  readonly sinceCheck: number;
  /** Pages between two re-checks now (decided http): recheckEvery, doubled by each agreeing one. */
  readonly checkEvery?: number;
}

export const LEARNING: HostRender = Object.freeze({ decision: 'learning', agreed: 0, sinceCheck: 0 });

/** Why a host was decided `browser`. */
export type Disagreement = 'sample' | 'recheck' | 'missing_field';

/** The path of a host's next page, and the host's state once that page is under way. */
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

/** After a page fetched both ways: did HTTP get what the browser got? */
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

/**
 * A re-check that could not render now (the browser is busy with pages that need it): the
 * host's next page is re-checked instead.
 */
export function postponeCheck(state: HostRender, o: RenderChoiceOptions): HostRender {
  if (state.decision !== 'http') return state;
  return { ...state, sinceCheck: Math.max(0, (state.checkEvery ?? o.recheckEvery) - 1) };
}

/** A page fetched over HTTP missed a required field and the browser found it. */
export function afterMiss(state: HostRender): HostRender {
  return { decision: 'browser', agreed: state.agreed, sinceCheck: 0 };
}
