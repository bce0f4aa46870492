/**
 * Bounded host labels. A crawl can touch millions of hosts; each distinct label value is a
 * new time series in Prometheus, so only the busiest hosts keep their name. A host earns its
 * name once it has made `minRequests` requests while fewer than `maxNamed` hosts are named;
 * a named host keeps its name for the life of the process (series stay stable), every other
 * host is reported as `other`. Candidate counts live in a bounded map so the labeler itself
 * stays small.
 */
export class HostLabels {
  readonly #named = new Set<string>();
  readonly #counts = new Map<string, number>();

  constructor(
    readonly maxNamed = 50,
    readonly minRequests = 5,
    readonly maxCandidates = 10_000,
  ) {}

  /** Counts one request for host and returns its label. */
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
