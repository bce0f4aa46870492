import { z } from 'zod';
import { TRAP_BOUNDS, TRAP_DEFAULTS, TRAPS_OFF, type TrapOptions } from '../../core/traps/trap-options.js';
import { numberIn } from '../units.js';

/**
 * jobs[].traps: the trap defences (docs/traps.md), each on by default. `false` turns every one
 * off, `true` is the defaults; the object form sets each.
 */
export const trapsSchema = z
  .union([
    z.boolean(),
    z.strictObject({
      /** Drop session ids (jsessionid, PHPSESSID, `;jsessionid=`, ...) from the dedupe key. */
      sessionIds: z.boolean().default(TRAP_DEFAULTS.sessionIds),
      /** Learn per host which query parameters do not change the page; drop them from its keys. */
      learnParams: z.boolean().default(TRAP_DEFAULTS.learnParams),
      /** Refuse paths repeating a run of segments, or too long; do not expand a page that repeats a shorter path's page. */
      repeatedPaths: z.boolean().default(TRAP_DEFAULTS.repeatedPaths),
      /** A run of segments may follow itself this many times. */
      maxSegmentRepeats: numberIn(TRAP_BOUNDS.maxSegmentRepeats).default(TRAP_DEFAULTS.maxSegmentRepeats),
      /** Paths of more segments are not followed. */
      maxPathSegments: numberIn(TRAP_BOUNDS.maxPathSegments).default(TRAP_DEFAULTS.maxPathSegments),
      /** Stop expanding a URL pattern whose pages keep coming out as near-duplicates. */
      nearDuplicates: z.boolean().default(TRAP_DEFAULTS.nearDuplicates),
      /** Pages of a pattern judged before it may be stopped. */
      seriesSample: numberIn(TRAP_BOUNDS.seriesSample).default(TRAP_DEFAULTS.seriesSample),
      /** Resemblance (0-1] of two pages' own text from which they are near-duplicates. */
      similarity: numberIn(TRAP_BOUNDS.similarity).default(TRAP_DEFAULTS.similarity),
      /** Learn each host's "not found" page; pages like it are recorded as soft_404, their links not followed. */
      soft404: z.boolean().default(TRAP_DEFAULTS.soft404),
    }),
  ])
  .default(true);

/** The trap options a job's `traps` value stands for. */
export function trapOptionsOf(traps: boolean | TrapOptions): TrapOptions {
  if (traps === true) return TRAP_DEFAULTS;
  if (traps === false) return TRAPS_OFF;
  return traps;
}
