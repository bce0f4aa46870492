import type { StatusSource } from '../ports/status-source.js';
import { RateSampler } from './status-data.js';

export interface ProgressSnapshot {
  /** Pages fetched by this run. */
  readonly done: number;
  /** Pages per second over the last few seconds; null before the second sample. */
  readonly pagesPerSec: number | null;
  readonly pending: number;
  readonly delayed: number;
  readonly inflight: number;
  readonly limit: number;
  /** Dead-lettered by this run. */
  readonly failed: number;
  readonly retried: number;
  readonly elapsedSeconds: number;
  readonly state: string;
}

// Made on first use: a NumberFormat loads ICU data, start-up time a run without a TTY never needs.
let intFormat: Intl.NumberFormat | undefined;
const int = {
  format(n: number): string {
    intFormat ??= new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
    return intFormat.format(n);
  },
};

function clock(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const h = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(h > 0 ? 2 : 1, '0');
  const ss = String(s % 60).padStart(2, '0');
  return h > 0 ? `${h}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** Never longer than `columns - 1` (a wrapped line cannot be redrawn with \r); ASCII for any font. */
export function formatProgress(p: ProgressSnapshot, columns?: number): string {
  const parts = [
    `crawld ${clock(p.elapsedSeconds)}`,
    `${int.format(p.done)} done`,
    `${p.pagesPerSec === null ? '-' : p.pagesPerSec.toFixed(1)} pages/s`,
    `queue ${int.format(p.pending)}${p.delayed > 0 ? ` (${int.format(p.delayed)} delayed)` : ''}`,
    `in flight ${int.format(p.inflight)}/${int.format(p.limit)}`,
    `${int.format(p.failed)} failed`,
    `${int.format(p.retried)} retried`,
  ];
  if (p.state !== 'running') parts.push(p.state);
  const line = parts.join(' | ');
  // 0 or undefined: the size is unknown (a pty without a size, a fake stream): assume 120.
  const max = Math.max(10, (columns !== undefined && columns > 0 ? columns : 120) - 1);
  return line.length > max ? `${line.slice(0, max - 1)}~` : line;
}

export interface ProgressStream {
  write(chunk: string): boolean;
  readonly columns?: number;
}

export interface ProgressOptions {
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/** The cursor stays at the line's start, so a log line written meanwhile overwrites it cleanly. */
export function startProgress(daemon: StatusSource, stream: ProgressStream, opts: ProgressOptions = {}) {
  const now = opts.now ?? Date.now;
  const sampler = new RateSampler(5_000);
  let stopped = false;
  let busy = false;
  let drawn = false;

  const tick = async () => {
    if (busy || stopped) return;
    busy = true; // frontier.stats() is async: never let two ticks interleave their writes
    try {
      const f = await daemon.frontier.stats();
      if (stopped) return;
      const c = daemon.scheduler.counters;
      const t = now();
      const rates = sampler.record({ at: t, ok: c.ok, failed: c.dead, retried: c.retry });
      const line = formatProgress(
        {
          done: c.ok,
          pagesPerSec: rates.pagesPerSec,
          pending: f.pending,
          delayed: f.delayed,
          inflight: daemon.control.inflight(),
          limit: daemon.control.globalLimit(),
          failed: c.dead,
          retried: c.retry,
          elapsedSeconds: (t - daemon.startedAt) / 1000,
          state: daemon.scheduler.state,
        },
        stream.columns,
      );
      stream.write(`\r${line}\x1b[K\r`);
      drawn = true;
    } catch {
      // The frontier closes during shutdown; a missed frame is not worth a log line.
    } finally {
      busy = false;
    }
  };

  void tick();
  const timer = setInterval(() => void tick(), opts.intervalMs ?? 500);
  // A progress line must never be the reason the process stays alive.
  timer.unref();
  return function stop(): void {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    if (drawn) stream.write('\r\x1b[K');
  };
}
