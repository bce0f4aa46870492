import type { HostRender, RenderDecision } from '../core/render-choice.js';

/**
 * The hosts of one `render: { kind: auto }` job and how each is fetched (core/render-choice.ts).
 * Decisions are kept beside the frontier, so a restart does not learn them again, and shared by
 * the daemons of a Redis crawl (within about a second).
 */
export interface RenderDecisions {
  /** The host's state; LEARNING for a host not seen yet. */
  get(host: string): HostRender;
  /** Sets the host's state; a changed decision is stored. */
  set(host: string, state: HostRender): void;
  /** Every decided host and its decision (status page). */
  decided(): Iterable<readonly [string, Exclude<RenderDecision, 'learning'>]>;
}
