/**
 * Each label value is a series, so only the busiest hosts keep their name (for the process's
 * life, so series stay stable); every other host is `other`.
 */
export class HostLabels {
  readonly #named = new Set<string>();
  readonly #counts = new Map<string, number>();

  constructor(
    readonly maxNamed = 50,
    readonly minRequests = 5,
    readonly maxCandidates = 10_000,
  ) {}

  observe(host: string): string {
    if (this.#named.has(host)) return host;
    if (this.#named.size >= this.maxNamed) return 'other';
    const n = (this.#counts.get(host) ?? 0) + 1;
    if (n >= this.minRequests) {
      this.#counts.delete(host);
      this.#named.add(host);
      return host;
    }
    if (!this.#counts.has(host) && this.#counts.size >= this.maxCandidates) {
      // Forget the oldest candidate: one-off hosts must not hold memory forever.
      const oldest = this.#counts.keys().next().value;
      if (oldest !== undefined) this.#counts.delete(oldest);
    }
    this.#counts.set(host, n);
    return 'other';
  }

  /** The label of host without counting a request. */
  label(host: string): string {
    return this.#named.has(host) ? host : 'other';
  }
}
