export type ListenerErrorHandler = (event: string, error: unknown) => void;

export const warnListenerError: ListenerErrorHandler = (event, error) =>
  process.emitWarning(`crawld: a '${event}' listener threw: ${String(error)}`);

/** A handler that throws too (a logger gone at shutdown) is ignored. */
export function reportListenerError(handler: ListenerErrorHandler, event: string, error: unknown): void {
  try {
    handler(event, error);
  } catch {}
}

type Args = [unknown?, unknown?, unknown?, unknown?];
type Call = (a?: unknown, b?: unknown, c?: unknown, d?: unknown) => void;

/**
 * Listeners whose emit() never throws: one that throws is reported and the others run. Up to four positional
 * arguments (unused ones undefined) rather than a rest array, so an emit on the release path allocates nothing.
 */
export class Listeners<A extends Args = []> {
  readonly #set = new Set<Call>();
  readonly #event: string;
  readonly #onError: ListenerErrorHandler;

  /** `event` names the listeners in the report. */
  constructor(event: string, onError: ListenerErrorHandler = warnListenerError) {
    this.#event = event;
    this.#onError = onError;
  }

  get size(): number {
    return this.#set.size;
  }

  add(listener: (...args: A) => void): () => void {
    const call = listener as unknown as Call;
    this.#set.add(call);
    return () => this.#set.delete(call);
  }

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
