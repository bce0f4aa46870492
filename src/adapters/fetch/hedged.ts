/**
 * After `delayMs` without headers a second request, if the budget allows (core/hedge.ts); the
 * first to answer wins. Fails only when both fail, with the first's error.
 */
import type { Readable } from 'node:stream';
import { AbortedError } from '../../core/errors.js';

export interface HedgeRun {
  readonly delayMs: number;
  /** Whether a second request may go out now (the budget); called once, when the delay is up. */
  take(): boolean;
  /** A second request went out, and which answered first: `won` the second, `lost` the first. */
  onHedge(result: 'won' | 'lost'): void;
}

const noop = () => {};

export function hedged<T extends { readonly body: Readable }>(
  attempt: (signal: AbortSignal) => Promise<T>,
  signal: AbortSignal,
  run: HedgeRun,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const controllers: AbortController[] = [];
    let pending = 0;
    let settled = false;
    let hedge = false;
    let firstError: unknown;
    const onAbort = () => {
      for (const c of controllers) c.abort(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const start = (i: number) => {
      const controller = new AbortController();
      controllers.push(controller);
      pending++;
      attempt(controller.signal).then(
        (sent) => {
          pending--;
          if (settled) {
            sent.body.on('error', noop);
            sent.body.destroy();
            return;
          }
          settle();
          for (const c of controllers)
            if (c !== controller) c.abort(new AbortedError('hedged request: the other one answered first'));
          if (hedge) run.onHedge(i === 1 ? 'won' : 'lost');
          resolve(sent);
        },
        (err: unknown) => {
          pending--;
          if (i === 0 || firstError === undefined) firstError = err;
          if (settled || pending > 0) return;
          settle();
          reject(firstError);
        },
      );
    };
    const timer = setTimeout(() => {
      if (settled || signal.aborted || !run.take()) return;
      hedge = true;
      start(1);
    }, run.delayMs);
    timer.unref();
    start(0);
  });
}
