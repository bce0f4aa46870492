import type { Bound } from './bound.js';

/**
 * The WARC sink's number options (sinks[] kind warc, adapters/sink/warc/): defaults and bounds
 * written once; the config schema reads them through numberIn.
 */
export interface WarcNumbers {
  /** A file is closed before a record would take it past this size (compressed bytes). */
  readonly maxFileBytes: number;
  /** zlib level of each record's gzip member: 1 fastest, 9 smallest. */
  readonly gzipLevel: number;
  /** URLs whose last capture (digest, date, record id) is remembered for revisit records. */
  readonly revisitMemory: number;
}

export const WARC_DEFAULTS: WarcNumbers = Object.freeze({
  maxFileBytes: 1_000_000_000,
  gzipLevel: 1,
  revisitMemory: 100_000,
});

export const WARC_BOUNDS = Object.freeze({
  // Below 64 KiB nearly every record would get a file of its own.
  maxFileBytes: { min: 65_536, max: 2 ** 48, integer: true },
  gzipLevel: { min: 1, max: 9, integer: true },
  revisitMemory: { min: 0, max: 100_000_000, integer: true },
} as const satisfies Record<keyof WarcNumbers, Bound>);
