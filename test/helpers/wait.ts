/**
 * The one way a test waits. A test waits for a condition (`waitFor`), never for a length of
 * time: how long something takes depends on the machine, what it does does not. The deadline
 * only turns a hang into an error that names what never came; it is generous and is never
 * what a test asserts. Where a test does mean "let time pass" (nothing happens during N ms, a
 * server paced, a process left running for a while), it says so and why through `pause`.
 */

/** Values a condition returns while it does not hold yet. */
type Falsy = false | 0 | '' | null | undefined;

export interface WaitOptions {
  /** What is awaited, as the deadline error says it: "timed out after 20000 ms waiting for WHAT". */
  readonly what: string;
  /**
   * Bounds a hang, in real ms: long enough never to be reached by a slow machine, under the
   * test's own timeout (vitest.config.ts, 30 s) so that the error names what never came.
   * @default 20_000
   */
  readonly deadlineMs?: number;
  /**
   * How often the condition is checked. `'turn'`: once per event-loop turn (setImmediate), for a
   * condition on this process's own state that its I/O callbacks change (an in-process engine,
   * a pool, a server): it sees the change on the turn it happens. A number: ms between checks,
   * for a condition that reads something outside (a child process's files or output, HTTP, a
   * database), so the check does not take the CPU from what it waits for.
   * @default 20
   */
  readonly every?: 'turn' | number;
}

/**
 * Checks `condition` until it returns a truthy value (sync or async) and returns that value;
 * throws `timed out after N ms waiting for WHAT` when the deadline passes first. A condition
 * that throws has not held yet (a server not listening yet, a file not written yet): the last
 * error is named in the deadline error. `options` may be just the `what`.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitOptions | string,
): Promise<Exclude<T, Falsy>> {
  const o: WaitOptions = typeof options === 'string' ? { what: options } : options;
  const deadlineMs = o.deadlineMs ?? 20_000;
  const every = o.every ?? 20;
  const start = performance.now();
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as Exclude<T, Falsy>;
    } catch (err) {
      lastError = err;
    }
    if (performance.now() - start >= deadlineMs) {
      const cause = lastError === undefined ? '' : ` (last error: ${String(lastError)})`;
      throw new Error(`timed out after ${deadlineMs} ms waiting for ${o.what}${cause}`, { cause: lastError });
    }
    await (every === 'turn' ? nextTurn() : delay(every));
  }
}

/**
 * Lets `ms` of real time pass, where that is what a test means: proving that nothing happens
 * during it, pacing a server or a start, leaving a process running for a while. `why` says
 * which, at the call (it must not be empty). Never to wait for something that can be checked:
 * that is `waitFor`.
 */
export function pause(ms: number, why: string): Promise<void> {
  if (why.trim() === '') throw new Error('pause: say why time must pass');
  return delay(ms);
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
