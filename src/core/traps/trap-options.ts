import { type Bound, POSITIVE_INT } from '../bound.js';

/**
 * The trap defences of a job (config `jobs[].traps`, docs/traps.md): each on by default, each
 * with its off switch; the numbers' defaults and bounds are written here once.
 */
export interface TrapOptions {
  /** Drop session ids (`jsessionid`, `PHPSESSID`, `;jsessionid=`, ...) from the dedupe key. @default true */
  readonly sessionIds: boolean;
  /**
   * Learn per host which query parameters do not change the page (the same page under two
   * values) and drop them from its keys, as session ids (DUST). @default true
   */
  readonly learnParams: boolean;
  /**
   * Do not follow links whose path repeats a run of segments more than `maxSegmentRepeats`
   * times in a row, or has more than `maxPathSegments` segments, nor the links of a page that
   * is byte for byte a page of a shorter path it extends. @default true
   */
  readonly repeatedPaths: boolean;
  /** A run of path segments may follow itself this many times (`/a/a` yes, `/a/a/a` no). @default 2 */
  readonly maxSegmentRepeats: number;
  /** @default 32 */
  readonly maxPathSegments: number;
  /**
   * Stop expanding a URL pattern of a host (path with numbers abstracted, parameter names)
   * whose pages keep coming out as near-duplicates of each other. @default true
   */
  readonly nearDuplicates: boolean;
  /** Pages of a pattern judged before it may be stopped. @default 8 */
  readonly seriesSample: number;
  /** Resemblance (Jaccard, 0-1) of two pages' own text from which they count as near-duplicates. @default 0.8 */
  readonly similarity: number;
  /**
   * Learn what a host answers for a path that cannot exist; pages like it are recorded as
   * `trap: "soft_404"` and their links not followed. @default true
   */
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

/** Every defence off (config `traps: false`). */
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
  // Fewer than 3 pages cannot show a series (the first page is compared with none).
  seriesSample: { min: 3, max: 1000, integer: true },
  similarity: { min: 0, minExclusive: true, max: 1 },
} as const satisfies Record<string, Bound>);

/**
 * Why a URL was not fetched, or a fetched page not expanded (its links not followed): the
 * `reason` of crawld_trap_urls_total and of the `--once` summary.
 */
export const TRAP_REASONS = [
  'session_id',
  'session_like',
  'repeated_path',
  'long_path',
  'near_duplicate_series',
  'soft_404',
] as const;
export type TrapReason = (typeof TRAP_REASONS)[number];
