/** A module of its own so that errors.ts need not import the estimator. */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'render';
export const TIMEOUT_PHASES: readonly TimeoutPhase[] = ['connect', 'headers', 'body', 'render'];
