import type { HostRender, RenderDecision } from '../core/render-choice.js';

/** A `render: auto` job's per-host decisions, kept beside the frontier and shared by a Redis crawl's daemons. */
export interface RenderDecisions {
  get(host: string): HostRender;
  set(host: string, state: HostRender): void;
  decided(): Iterable<readonly [string, Exclude<RenderDecision, 'learning'>]>;
}
