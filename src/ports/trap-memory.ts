import type { HostTraps } from '../core/traps/host-traps.js';

/**
 * What one job has learned about its hosts' traps (core/traps/host-traps.ts): parameters that do
 * not change a page, stopped URL patterns, each host's soft 404. Kept beside the frontier, so a
 * restart does not learn them again, and shared by the daemons of a Redis crawl (within about a
 * second). The working state of a host still learning stays in this process.
 */
export interface TrapMemory {
  /** The host's state, created (with what was kept) on first use. */
  get(host: string): HostTraps;
  /** The host's state if this process has it (no creation): the key rules read it per link. */
  peek(host: string): HostTraps | undefined;
  /** Stores the host's decisions (after a verdict said they changed). */
  save(host: string): void;
  /** Whether any host has a stopped pattern (the per-link check is skipped until one has). */
  readonly anyStopped: boolean;
}
