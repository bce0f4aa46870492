import { type Bound, POSITIVE_INT } from '../bound.js';

/** A job's trap defences (docs/traps.md), each on by default. */
export interface TrapOptions {
  /** @default true */
  readonly sessionIds: boolean;
  /** Learn parameters that do not change a host's pages, and drop them from its keys. @default true */
  readonly learnParams: boolean;
  /** Refuse repeated segment runs, overlong paths, and a page that repeats a shorter path's page. @default true */
  readonly repeatedPaths: boolean;
  /** `/a/a` yes, `/a/a/a` no. @default 2 */
  readonly maxSegmentRepeats: number;
  /** @default 32 */
  readonly maxPathSegments: number;
  /** Stop a URL pattern whose pages keep coming out as near-duplicates. @default true */
  readonly nearDuplicates: boolean;
  /** @default 8 */
  readonly seriesSample: number;
  /** Jaccard of own text. @default 0.8 */
  readonly similarity: number;
  /** Pages like the host's answer for a missing path are `trap: "soft_404"`, links not followed. @default true */
  readonly soft404: boolean;
}

export const TRAP_DEFAULTS: TrapOptions = Object.freeze({
  sessionIds: true,
  learnParams: true,
  repeatedPaths: true,
  maxSegmentRepeats: 2,
  maxPathSegments: 32,
  nearDuplicates: true,
  seriesSample: 8,
  similarity: 0.8,
  soft404: true,
});

export const TRAPS_OFF: TrapOptions = Object.freeze({
  ...TRAP_DEFAULTS,
  sessionIds: false,
  learnParams: false,
  repeatedPaths: false,
  nearDuplicates: false,
  soft404: false,
});

export const TRAP_BOUNDS = Object.freeze({
  maxSegmentRepeats: POSITIVE_INT,
  maxPathSegments: POSITIVE_INT,
  // The first page is compared with none: fewer than 3 cannot show a series.
  seriesSample: { min: 3, max: 1000, integer: true },
  similarity: { min: 0, minExclusive: true, max: 1 },
} as const satisfies Record<string, Bound>);

/** The `reason` of crawld_trap_urls_total. */
export const TRAP_REASONS = [
  'session_id',
  'session_like',
  'repeated_path',
  'long_path',
  'near_duplicate_series',
  'soft_404',
] as const;
export type TrapReason = (typeof TRAP_REASONS)[number];
