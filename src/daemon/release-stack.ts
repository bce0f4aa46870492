/**
 * graphile-worker's `withReleasers`: each resource is pushed right after it opened, so a failed
 * step releases exactly what the steps before it opened, and stop() releases the same list.
 */
export type Release = () => void | Promise<void>;

export class ReleaseStack {
  readonly #entries: { readonly name: string; readonly release: Release }[] = [];
  #releasing: Promise<void> | undefined;

  readonly #onReleased: ((name: string, error?: unknown) => void) | undefined;

  constructor(onReleased?: (name: string, error?: unknown) => void) {
    this.#onReleased = onReleased;
  }

  push(name: string, release: Release): void {
    if (this.#releasing) throw new Error(`release stack: '${name}' opened after the release began`);
    this.#entries.push({ name, release });
  }

  names(): string[] {
    return this.#entries.map((e) => e.name).reverse();
  }

  /**
   * One release that throws does not keep the others from running (a lock left behind would
   * refuse the next start); the first error is rethrown at the end. Idempotent.
   */
  release(): Promise<void> {
    this.#releasing ??= (async () => {
      let first: { error: unknown } | undefined;
      for (let i = this.#entries.length - 1; i >= 0; i--) {
        const { name, release } = this.#entries[i]!;
        try {
          await release();
          this.#onReleased?.(name);
        } catch (error) {
          first ??= { error };
          this.#onReleased?.(name, error);
        }
      }
      if (first) throw first.error;
    })();
    return this.#releasing;
  }
}

/** On a throw, everything `open` pushed is released before the error goes on. */
export async function withReleasers<T>(
  stack: ReleaseStack,
  open: (stack: ReleaseStack) => Promise<T>,
): Promise<T> {
  try {
    return await open(stack);
  } catch (err) {
    // The start-up error is the one to report; a release failing after it is secondary.
    await stack.release().catch(() => {});
    throw err;
  }
}
