import type { Bound } from './bound.js';

export interface WarcNumbers {
  /** Compressed bytes. */
  readonly maxFileBytes: number;
  readonly gzipLevel: number;
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
