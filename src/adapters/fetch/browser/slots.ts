import { AbortedError } from '../../../core/errors.js';

/** A counting semaphore whose waiters can be aborted: the global page cap. */
export class Slots {
  #free: number;
  readonly #waiters: Array<() => void> = [];

  constructor(size: number) {
    this.#free = size;
  }

  get waiting(): number {
    return this.#waiters.length;
  }

  /** Slots free now (an acquire would not wait). */
  get free(): number {
    return this.#free;
  }

  async acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw new AbortedError('aborted while waiting for a browser page');
    if (this.#free > 0) {
      this.#free--;
      return;
    }
    await new Promise<void>((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = this.#waiters.indexOf(grant);
        if (i >= 0) this.#waiters.splice(i, 1);
        reject(new AbortedError('aborted while waiting for a browser page'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free++;
  }
}
