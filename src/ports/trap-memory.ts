import type { HostTraps } from '../core/traps/host-traps.js';

/** A job's learned traps per host, kept beside the frontier and shared by a Redis crawl's daemons. */
export interface TrapMemory {
  get(host: string): HostTraps;
  /** No creation: read per link. */
  peek(host: string): HostTraps | undefined;
  save(host: string): void;
  readonly anyStopped: boolean;
}
