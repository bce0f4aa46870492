/**
 * Time to first byte inside undici's dispatch, net of pool queueing and connect (timing around
 * `request()` would include both), and the hop held to its host's learned timeouts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Dispatcher } from 'undici';
import { systemClock } from '../../core/clock.js';
import { HungRequestError } from '../../core/errors.js';
import type { HostTimeouts } from '../../core/host-timeout.js';
import { type PhaseWatch, watchPhase } from '../../core/phase-watch.js';
import type { TimeoutPhase } from '../../core/timeout-phase.js';
import { LoopTurn } from './loop-turn.js';

const loopTurn = new LoopTurn();

export interface HopTiming {
  /** performance.now() just before the request was written. */
  requestStart?: number;
  /** performance.now() when final (non-1xx) response headers arrived. */
  responseStart?: number;
  /** Of the time to those headers, the estimated wait for this process's own other work. */
  responseQueued?: number;
}

export interface HopWatch {
  readonly timeouts: HostTimeouts;
  readonly host: string;
  readonly url: string;
  /** The ceilings of the learned timeouts. */
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number;
}

type Controller = Dispatcher.DispatchController;

// Forwarding written out, as in exchange-capture.ts: a shared base class cost a call more per callback (docs/history.md).
class TimingHandler implements Dispatcher.DispatchHandler {
  readonly #inner: Dispatcher.DispatchHandler;
  readonly #timing: HopTiming;
  readonly #hop: HopWatch | undefined;
  #watch: PhaseWatch | undefined;

  constructor(inner: Dispatcher.DispatchHandler, timing: HopTiming, hop: HopWatch | undefined) {
    this.#inner = inner;
    this.#timing = timing;
    this.#hop = hop;
  }

  onRequestStart(controller: Controller, context: unknown): void {
    // Re-dispatch after a pipelined failure calls this again; the last write is the one answered.
    this.#timing.requestStart = performance.now();
    this.#watch?.cancel();
    this.#watch = this.#start(controller, 'headers');
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
      this.#watch?.done();
      this.#watch = this.#start(controller, 'body');
    }
    this.#inner.onResponseStart?.(controller, status, headers, statusMessage);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    this.#watch?.progress();
    this.#inner.onResponseData?.(controller, chunk);
  }

  onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void {
    this.#watch?.done();
    this.#inner.onResponseEnd?.(controller, trailers);
  }

  onResponseError(controller: Controller, error: Error): void {
    this.#watch?.cancel();
    this.#inner.onResponseError?.(controller, error);
  }

  #start(controller: Controller, phase: TimeoutPhase): PhaseWatch | undefined {
    const hop = this.#hop;
    if (!hop) return undefined;
    const ceiling = phase === 'headers' ? hop.headersTimeoutMs : hop.bodyTimeoutMs;
    const watch: PhaseWatch = watchPhase(hop.timeouts, systemClock, hop.host, phase, ceiling, () =>
      // The answer may already be in the socket: the poll phase runs before the immediate.
      setImmediate(() => {
        // A body we do not read fast enough (undici paused the socket) is our silence, not the host's.
        if (controller.paused) return watch.progress();
        if (!watch.expire()) return;
        controller.abort(
          new HungRequestError(
            phase,
            `${hop.url}: hung: no ${phase === 'headers' ? 'response headers' : 'body data'} within ${watch.armed.ms} ms, the host's learned timeout`,
          ),
        );
      }),
    );
    return watch;
  }
}

/**
 * `wrap` (the exchange capture) shares the layer: each composed layer converts headers once more.
 * It goes inside the timing, so the time it holds an ended response (its archive) is not the host's.
 */
export function timedDispatcher(
  agent: Dispatcher,
  timing: HopTiming,
  hop?: HopWatch,
  wrap?: (handler: Dispatcher.DispatchHandler) => Dispatcher.DispatchHandler,
): Dispatcher {
  return agent.compose(
    (dispatch) => (opts, handler) =>
      dispatch(opts, new TimingHandler(wrap ? wrap(handler) : handler, timing, hop)),
  );
}
