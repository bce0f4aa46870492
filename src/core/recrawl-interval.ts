/**
 * Adaptive recrawl intervals (docs/recrawl.md): each page carries its own interval, which
 * grows by GROW when a recrawl finds the page unchanged and shrinks by SHRINK when it changed,
 * always within [minMs, maxMs]. A page that changes every cycle converges on minMs, one that
 * never changes on maxMs, so a fixed request budget goes where the changes are. Pure.
 */
export interface RecrawlPolicy {
  /** The first interval of every page (the job's recrawlIntervalMs). */
  readonly startMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  /** False: every page waits startMs (a fixed interval). */
  readonly adaptive: boolean;
}

/** Unchanged: the next wait is this much longer. */
export const GROW = 1.5;
/** Changed: the next wait is this fraction of the last one. */
export const SHRINK = 0.5;

/**
 * The page's next interval. `previousMs` is its last interval (undefined on its first fetch);
 * `changed` whether this fetch found it changed (undefined on its first fetch).
 */
export function nextRecrawlInterval(
  policy: RecrawlPolicy,
  previousMs: number | undefined,
  changed: boolean | undefined,
): number {
  if (!policy.adaptive || previousMs === undefined || changed === undefined) return policy.startMs;
  const next = changed ? previousMs * SHRINK : previousMs * GROW;
  return Math.round(Math.min(policy.maxMs, Math.max(policy.minMs, next)));
}
