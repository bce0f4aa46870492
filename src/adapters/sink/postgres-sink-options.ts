import type { Random } from '../../core/clock.js';
import type { SinkObserver } from '../../ports/sink.js';

export interface PostgresSinkOptions {
  /** postgres://USER[:PASSWORD]@HOST:PORT/DB */
  readonly url: string;
  readonly table: string;
  /** Rows per INSERT statement (a page's items are never split across statements). */
  readonly batchSize: number;
  /** After its oldest record arrived. */
  readonly flushIntervalMs: number;
  /** Rows buffered at most; write() waits for room beyond it. */
  readonly maxBuffer: number;
  readonly onConflict: 'nothing' | 'update';
  readonly retryBaseMs: number;
  readonly retryMaxMs: number;
  /** How long close() keeps retrying a database that is down before giving up the rest. */
  readonly closeTimeoutMs: number;
  readonly observer: SinkObserver;
  readonly random: Random;
}

export const POSTGRES_SINK_DEFAULTS = {
  table: 'crawld_results',
  batchSize: 500,
  flushIntervalMs: 200,
  maxBuffer: 5_000,
  onConflict: 'nothing',
  retryBaseMs: 200,
  retryMaxMs: 10_000,
  closeTimeoutMs: 30_000,
} as const;
