/**
 * Time to first byte measured inside undici's dispatch: onRequestStart fires right before the
 * request is written to a socket (after pool queueing and connect), onResponseStart when the
 * status line and headers are parsed. Timing around `request()` would include both waits.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { LoopTurn } from './loop-turn.js';

/** One event loop per process, so one turn tracker for every request of it. */
const loopTurn = new LoopTurn();

export interface HopTiming {
  /** performance.now() just before the request was written. */
  requestStart?: number;
  /** performance.now() when final (non-1xx) response headers arrived. */
  responseStart?: number;
  /** Of the time to those headers, the estimated wait for this process's own other work. */
  responseQueued?: number;
}

type Controller = Dispatcher.DispatchController;

class TimingHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #timing: HopTiming;

  constructor(inner: Dispatcher.DispatchHandler, timing: HopTiming) {
    this.#inner = inner;
    this.#timing = timing;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    // Re-dispatch after a pipelined failure calls this again; the last write is the one answered.
    this.#timing.requestStart = performance.now();
    this.#inner.onRequestStart?.(controller, context);
  }

  onRequestUpgrade(
    controller: Controller,
    status: number,
    headers: IncomingHttpHeaders,
    socket: Duplex,
  ): void {
    this.#inner.onRequestUpgrade?.(controller, status, headers, socket);
  }

  onResponseStart(
    controller: Controller,
    status: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    if (status >= 200 && this.#timing.responseStart === undefined) {
      const now = performance.now();
      this.#timing.responseStart = now;
      this.#timing.responseQueued = loopTurn.queuedMs(now);
    }
    this.#inner.onResponseStart?.(controller, status, headers, statusMessage);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void {
    this.#inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    this.#inner.onResponseError?.(controller, error);
  }
}

/**
 * A per-request view of the agent that records `timing`; composing is cheap (a Proxy).
 * `wrap` adds a handler of its own in the same layer (the exchange capture): each composed
 * layer converts the response's headers between undici's two handler forms once more.
 */
export function timedDispatcher(
  agent: Dispatcher,
  timing: HopTiming,
  wrap?: (handler: Dispatcher.DispatchHandler) => Dispatcher.DispatchHandler,
): Dispatcher {
  return agent.compose((dispatch) => (opts, handler) => {
    const timed = new TimingHandler(handler, timing);
    return dispatch(opts, wrap ? wrap(timed) : timed);
  });
}
