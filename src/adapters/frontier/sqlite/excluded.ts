/**
 * The hosts a lease skips, kept in the connection's TEMP table lease_exclude between leases. A
 * scheduler's exclusions (hosts waiting out their delay, hosts with a full buffer) change by a few
 * hosts between leases, so each lease writes only the change: sending the whole set (JSON, then
 * json_each into a fresh index on every lease) cost about 1 ms a lease at 1,500 hosts.
 */
export interface ExclusionChange {
  readonly add: readonly string[];
  readonly drop: readonly string[];
}

export class ExcludedHosts {
  /** What the TEMP table holds (as of the last committed lease). */
  readonly #held = new Set<string>();

  /** The writes that make the table hold `next`; commit() them once the lease committed. */
  change(next: ReadonlySet<string>): ExclusionChange {
    const add: string[] = [];
    const drop: string[] = [];
    for (const host of next) if (!this.#held.has(host)) add.push(host);
    for (const host of this.#held) if (!next.has(host)) drop.push(host);
    return { add, drop };
  }

  commit(change: ExclusionChange): void {
    for (const host of change.drop) this.#held.delete(host);
    for (const host of change.add) this.#held.add(host);
  }

  /** A new connection: its TEMP table is empty. */
  reset(): void {
    this.#held.clear();
  }
}
