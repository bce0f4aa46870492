/**
 * The phases of a request, each timed against its host's learned timeout (core/host-timeout.ts):
 * the connection (a new one only), the response headers (from the request written), the body
 * (the longest silence between two chunks) and a browser's page load (the render). A module of
 * its own so that errors.ts names the phase of a hung request without importing the estimator.
 */
export type TimeoutPhase = 'connect' | 'headers' | 'body' | 'render';
export const TIMEOUT_PHASES: readonly TimeoutPhase[] = ['connect', 'headers', 'body', 'render'];
