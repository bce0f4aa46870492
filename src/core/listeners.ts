/** Called when a listener throws; the emit goes on with the other listeners. */
export type ListenerErrorHandler = (event: string, error: unknown) => void;

export const warnListenerError: ListenerErrorHandler = (event, error) =>
  process.emitWarning(`crawld: a '${event}' listener threw: ${String(error)}`);

/** Hands a listener's error to `handler`; a handler that throws too (a logger gone at shutdown) is ignored. */
export function reportListenerError(handler: ListenerErrorHandler, event: string, error: unknown): void {
  try {
    handler(event, error);
  } catch {
    // Nothing more can be done safely.
  }
}

type Args = [unknown?, unknown?, unknown?, unknown?];
type Call = (a?: unknown, b?: unknown, c?: unknown, d?: unknown) => void;

/**
 * A set of listeners whose emit() never throws, like TypedEmitter's: a listener that throws is
 * reported and the others still run, so a bad subscriber cannot break the algorithm that emits.
 * Positional arguments, not a rest array, so an emit on a hot path allocates nothing.
 */
export class Listeners<A extends Args = []> {
  readonly #set = new Set<Call>();
  readonly #event: string;
  readonly #onError: ListenerErrorHandler;

  /** `event` names the listeners in the report. @default onError warnListenerError */
  constructor(event: string, onError: ListenerErrorHandler = warnListenerError) {
    this.#event = event;
    this.#onError = onError;
  }

  get size(): number {
    return this.#set.size;
  }

  /** Returns an unsubscribe. */
  add(listener: (...args: A) => void): () => void {
    const call = listener as unknown as Call;
    this.#set.add(call);
    return () => this.#set.delete(call);
  }

  /** Calls each listener; one that throws is reported and the next one runs. */
  emit(...args: A): void;
  emit(a?: unknown, b?: unknown, c?: unknown, d?: unknown): void {
    for (const listener of this.#set) {
      try {
        listener(a, b, c, d);
      } catch (error) {
        reportListenerError(this.#onError, this.#event, error);
      }
    }
  }
}
