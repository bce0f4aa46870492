/**
 * Nothing ends crawld but its shutdown path. Node exits when its event loop has nothing left
 * that keeps it alive, and crawld's timers are unref'd: an idle `run` (waiting for a recrawl,
 * a submission or a sitemap refresh, without an HTTP server) exited 0 after its first pass,
 * which a supervisor's Restart=on-failure never restarts.
 */

/** Holds the process up until released (a `run` without --once, until it is signalled). */
export function holdProcess(): () => void {
  // One timer far in the future, ref'd: the cheapest handle that keeps the loop alive.
  const h = setInterval(() => {}, 2 ** 31 - 1);
  return () => clearInterval(h);
}

/**
 * Resolves if the event loop drains while the crawl still runs. The scheduler keeps a ref'd
 * wake-up while tasks wait, so this means a bug: the caller logs it and exits non-zero, never
 * 0 with work left. `dispose` once the crawl has ended.
 */
export function whenLoopDrains(): { drained: Promise<void>; dispose: () => void } {
  let onBeforeExit = () => {};
  const drained = new Promise<void>((resolve) => {
    onBeforeExit = () => resolve();
  });
  process.once('beforeExit', onBeforeExit);
  return { drained, dispose: () => process.off('beforeExit', onBeforeExit) };
}
