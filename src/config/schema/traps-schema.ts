import { z } from 'zod';
import { TRAP_BOUNDS, TRAP_DEFAULTS, TRAPS_OFF, type TrapOptions } from '../../core/traps/trap-options.js';
import { numberIn } from '../units.js';

/** jobs[].traps (docs/traps.md): each defence on by default; `false` turns every one off. */
export const trapsSchema = z
  .union([
    z.boolean(),
    z.strictObject({
      sessionIds: z.boolean().default(TRAP_DEFAULTS.sessionIds),
      learnParams: z.boolean().default(TRAP_DEFAULTS.learnParams),
      repeatedPaths: z.boolean().default(TRAP_DEFAULTS.repeatedPaths),
      maxSegmentRepeats: numberIn(TRAP_BOUNDS.maxSegmentRepeats).default(TRAP_DEFAULTS.maxSegmentRepeats),
      maxPathSegments: numberIn(TRAP_BOUNDS.maxPathSegments).default(TRAP_DEFAULTS.maxPathSegments),
      nearDuplicates: z.boolean().default(TRAP_DEFAULTS.nearDuplicates),
      seriesSample: numberIn(TRAP_BOUNDS.seriesSample).default(TRAP_DEFAULTS.seriesSample),
      similarity: numberIn(TRAP_BOUNDS.similarity).default(TRAP_DEFAULTS.similarity),
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
