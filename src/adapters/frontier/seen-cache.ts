import type { EnqueueRequest, EnqueueResult } from '../../ports/frontier.js';
import { type PreparedRequest, prepareRequests } from './frontier-common.js';

/**
 * URLs known to be in the frontier, per job, so that links found again (every page's navigation)
 * are answered "duplicate" without a store round trip: sound because records are never deleted.
 * Bounded and cleared when full (figures: docs/performance.md). The Redis adapter clears it on
 * every (re)connect; a FLUSHDB behind a live connection is not detected.
 */
export class SeenCache {
  readonly #max: number;
  #byJob = new Map<string, Set<string>>();
  #size = 0;

  constructor(max = 200_000) {
    this.#max = max;
  }

  /**
   * Prepares every request, answers the known ones, stores the rest and remembers them unless
   * some were dropped (then which were stored is unknown). `check` sees every prepared request.
   */
  async enqueue(
    requests: readonly EnqueueRequest[],
    now: number,
    store: (fresh: PreparedRequest[]) => EnqueueResult | Promise<EnqueueResult>,
    check?: (prepared: readonly PreparedRequest[]) => void,
  ): Promise<EnqueueResult> {
    // Known requests by identity: prepareRequests skips parsing their hosts.
    const known = this.#known(requests);
    const prepared = prepareRequests(requests, now, (r) => known.has(r));
    check?.(prepared);
    const fresh = known.size ? prepared.filter((_, i) => !known.has(requests[i]!)) : prepared;
    const cached = prepared.length - fresh.length;
    if (fresh.length === 0) return { added: 0, duplicates: cached, dropped: 0 };
    const result = await store(fresh);
    if (result.dropped === 0) this.#remember(fresh);
    return { ...result, duplicates: result.duplicates + cached };
  }

  clear(): void {
    this.#byJob = new Map();
    this.#size = 0;
  }

  /** The requests (by identity) whose URL is known to be stored; never a forced one. */
  #known(requests: readonly EnqueueRequest[]): Set<EnqueueRequest> {
    const known = new Set<EnqueueRequest>();
    for (const r of requests) {
      if (r.force !== true && this.#byJob.get(r.jobId)?.has(r.url) === true) known.add(r);
    }
    return known;
  }

  /** Records URLs the store has just confirmed stored (added or duplicate, none dropped). */
  #remember(stored: readonly { readonly jobId: string; readonly url: string }[]): void {
    if (this.#size + stored.length > this.#max) this.clear();
    for (const r of stored) {
      let urls = this.#byJob.get(r.jobId);
      if (urls === undefined) {
        urls = new Set();
        this.#byJob.set(r.jobId, urls);
      }
      const before = urls.size;
      this.#size += urls.add(r.url).size - before;
    }
  }
}
