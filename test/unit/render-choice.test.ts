import { describe, expect, it } from 'vitest';
import {
  afterCompare,
  afterMiss,
  checkRenderChoiceOptions,
  type HostRender,
  LEARNING,
  nextPath,
  postponeCheck,
  RECHECK_BACKOFF_MAX,
} from '../../src/core/render-choice.js';
import { compareRendered, missingRequired } from '../../src/engine/task/render-compare.js';
import type { Extraction } from '../../src/ports/extractor.js';

const o = { samplePages: 3, recheckEvery: 4 };

/** Runs pages through a host: each agrees (true) or not; returns the paths taken. */
function walk(agreements: boolean[], start: HostRender = LEARNING) {
  let s = start;
  const paths: string[] = [];
  for (const agree of agreements) {
    const next = nextPath(s, o);
    paths.push(next.path);
    s = next.path === 'both' ? afterCompare(next.state, agree, o) : next.state;
  }
  return { paths, state: s };
}

describe('render choice per host (core/render-choice.ts)', () => {
  it('samples samplePages pages both ways, then decides http and re-checks one page in recheckEvery, doubling while re-checks agree', () => {
    const { paths, state } = walk(Array(23).fill(true));
    const both = paths.flatMap((p, i) => (p === 'both' ? [i] : []));
    // Sample 0-2; re-checks 4 pages later (6), then 8 (14), then 16 (30: past this walk).
    expect(both).toEqual([0, 1, 2, 6, 14]);
    expect(state).toMatchObject({ decision: 'http', checkEvery: 16 });
    // The interval stops growing at RECHECK_BACKOFF_MAX x recheckEvery.
    let s = state;
    for (let i = 0; i < 10; i++) s = afterCompare({ ...s, decision: 'http' }, true, o);
    expect(s.checkEvery).toBe(o.recheckEvery * RECHECK_BACKOFF_MAX);
  });

  it('a re-check postponed (the browser busy) is tried again on the next page', () => {
    const decided = walk([true, true, true]).state;
    let s = decided;
    for (let i = 0; i < 3; i++) s = nextPath(s, o).state;
    const due = nextPath(s, o);
    expect(due.path).toBe('both');
    const postponed = postponeCheck(due.state, o);
    expect(nextPath(postponed, o).path).toBe('both');
    expect(postponeCheck(LEARNING, o)).toBe(LEARNING);
  });

  it('one disagreement in the sample decides browser, for good', () => {
    const { paths, state } = walk([true, false, true, true, true]);
    expect(paths).toEqual(['both', 'both', 'browser', 'browser', 'browser']);
    expect(state.decision).toBe('browser');
  });

  it('a re-check that disagrees, or a page missing a required field, turns an http host to browser', () => {
    const decided = walk([true, true, true]).state;
    expect(decided.decision).toBe('http');
    expect(walk([true, true, true, false, true], decided).state.decision).toBe('browser');
    expect(afterMiss(decided).decision).toBe('browser');
    // A browser host stays one whatever a comparison says.
    expect(afterCompare(afterMiss(decided), true, o).decision).toBe('browser');
  });

  it('checks its options against the bounds the config schema reads', () => {
    expect(() => checkRenderChoiceOptions({ samplePages: 0, recheckEvery: 20 })).toThrow(/samplePages/);
    expect(() => checkRenderChoiceOptions({ samplePages: 3, recheckEvery: 1 })).toThrow(/recheckEvery/);
    expect(checkRenderChoiceOptions(o)).toBe(o);
  });
});

const ex = (fields: Record<string, unknown>, links: string[] = []): Extraction => ({
  fields,
  links: links.map((url) => ({ url, priority: 0 })),
  errors: [],
});

describe('comparing an HTTP extraction with the rendered one (engine/task/render-compare.ts)', () => {
  it('agrees when HTTP has every required field the browser has, and 90% of its links', () => {
    const links = Array.from({ length: 10 }, (_, i) => `http://s/p/${i}`);
    const rendered = ex({ title: 'T', price: 3, extra: 'x' }, links);
    expect(
      compareRendered(ex({ title: 'T', price: 3 }, links.slice(0, 9)), rendered, ['title', 'price']).agree,
    ).toBe(true);
    const fewLinks = compareRendered(ex({ title: 'T', price: 3 }, links.slice(0, 8)), rendered, [
      'title',
      'price',
    ]);
    expect(fewLinks).toMatchObject({ agree: false, linkRecall: 0.8 });
    const noPrice = compareRendered(ex({ title: 'T', price: null }, links), rendered, ['title', 'price']);
    expect(noPrice).toMatchObject({ agree: false, missingFields: ['price'] });
  });

  it('without required fields every field the browser found counts; values may differ', () => {
    expect(compareRendered(ex({ title: 'A', d: 'x' }), ex({ title: 'B', d: 'y' }), []).agree).toBe(true);
    expect(compareRendered(ex({ title: 'A', d: '' }), ex({ title: 'B', d: 'y' }), []).agree).toBe(false);
    // A field the browser did not find either is no disagreement.
    expect(compareRendered(ex({ title: 'A', d: null }), ex({ title: 'B', d: null }), []).agree).toBe(true);
  });

  it('missingRequired names the required fields without a value', () => {
    expect(missingRequired(ex({ a: 1, b: '', c: [], d: 0 }), ['a', 'b', 'c', 'd', 'e'])).toEqual([
      'b',
      'c',
      'e',
    ]);
  });
});
