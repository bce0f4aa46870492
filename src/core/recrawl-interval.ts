/** Adaptive recrawl intervals (docs/recrawl.md): longer when unchanged, shorter when changed, within [minMs, maxMs]. */
export interface RecrawlPolicy {
  readonly startMs: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly adaptive: boolean;
}

export const GROW = 1.5;
export const SHRINK = 0.5;

/** `previousMs` and `changed` are undefined on the first fetch. */
export function nextRecrawlInterval(
  policy: RecrawlPolicy,
  previousMs: number | undefined,
  changed: boolean | undefined,
): number {
  if (!policy.adaptive || previousMs === undefined || changed === undefined) return policy.startMs;
  const next = changed ? previousMs * SHRINK : previousMs * GROW;
  return Math.round(Math.min(policy.maxMs, Math.max(policy.minMs, next)));
}
