/**
 * Limit hints: the per-host concurrency limits the daemons of a shared frontier found, so that
 * a daemon meeting a host for the first time starts near them instead of at initialLimit
 * (HostLimiters' startLimit). A daemon that joined a crawl running flat out took 1-1.5 s of slow
 * start to reach 32 while the others sat at 100-256, and the crawl's tail was over by then.
 *
 * Pure rules, no I/O: which of this daemon's limits to write and when (LimitPublisher), and
 * what the entries read say a new host's limit should start at (HostLimitHints). The entries
 * live in a SharedMapStore (adapters/shared-map/stored-limit-hints.ts); docs/control-plane.md, _Limit
 * hints_.
 */

export const LIMIT_HINTS = Object.freeze({
  /** A host's entry is written at most this often... */
  publishEveryMs: 1000,
  /** ...when its limit moved by this factor (up or down) since it was written, */
  notableRatio: 1.25,
  /** and again, unchanged, this often while the host still has a limiter: */
  refreshMs: 120_000,
  /** an entry older than this says nothing any more (its daemon left the host, or stopped). */
  maxAgeMs: 600_000,
});

/** One daemon's limit for a host, and when (clock.now(), epoch ms) it wrote it. */
export interface HintEntry {
  readonly limit: number;
  readonly at: number;
}

/**
 * The entries of every daemon (this one's too: after a restart, or for a host its limiters
 * forgot), by host. hint(): the lower median of a host's fresh entries.
 */
export class HostLimitHints {
  readonly #hosts = new Map<string, Map<string, HintEntry>>();

  /** Sets (or, with no entry, removes) one daemon's entry for a host. */
  set(host: string, instance: string, entry: HintEntry | undefined): void {
    let byDaemon = this.#hosts.get(host);
    if (entry === undefined) {
      byDaemon?.delete(instance);
      if (byDaemon?.size === 0) this.#hosts.delete(host);
      return;
    }
    if (!byDaemon) {
      byDaemon = new Map();
      this.#hosts.set(host, byDaemon);
    }
    byDaemon.set(instance, entry);
  }

  clear(): void {
    this.#hosts.clear();
  }

  /** Hosts with entries. */
  get size(): number {
    return this.#hosts.size;
  }

  /**
   * Where a new host's limit may start: the lower median of the entries written within maxAgeMs
   * of `now` (of two daemons, the lower limit: a hint should not push a host harder than the
   * daemons that crawl it found it takes); undefined when there is none.
   */
  hint(host: string, now: number): number | undefined {
    const byDaemon = this.#hosts.get(host);
    if (!byDaemon) return undefined;
    const limits: number[] = [];
    for (const e of byDaemon.values()) if (now - e.at <= LIMIT_HINTS.maxAgeMs) limits.push(e.limit);
    if (limits.length === 0) return undefined;
    limits.sort((a, b) => a - b);
    return limits[Math.floor((limits.length - 1) / 2)];
  }
}

/** What to write: a host's limit, or no limit (its entry goes: the host has no limiter here). */
export interface HintWrite {
  readonly host: string;
  readonly limit?: number;
}

interface Published {
  /** The limit as it is now. */
  limit: number;
  /** As last written (undefined: never written yet). */
  written: number | undefined;
  writtenAt: number;
}

/**
 * Which of this daemon's host limits to write. A host is written once its limit went above
 * `initialLimit` (a broad crawl's hosts at one or a few requests in flight write nothing), then
 * whenever it moved by notableRatio since it was last written (below initialLimit too: the
 * median must see a host that proved slow), at most once per publishEveryMs, and every
 * refreshMs while the host still has a limiter, so that its entry stays fresh.
 */
export class LimitPublisher {
  readonly #hosts = new Map<string, Published>();

  /** A host's limit changed to `limit`; `initialLimit`: where a limit of its kind starts. */
  changed(host: string, limit: number, initialLimit: number): void {
    const p = this.#hosts.get(host);
    if (p) p.limit = limit;
    else if (limit > initialLimit)
      this.#hosts.set(host, { limit, written: undefined, writtenAt: Number.NEGATIVE_INFINITY });
  }

  /** Hosts followed (written, or about to be). */
  get size(): number {
    return this.#hosts.size;
  }

  /**
   * What to write at `now`; `current(host)`: the host's limit if it still has a limiter here
   * (undefined: forgotten, its entry is removed and the host no longer followed).
   */
  due(now: number, current: (host: string) => number | undefined): HintWrite[] {
    const out: HintWrite[] = [];
    for (const [host, p] of this.#hosts) {
      if (now - p.writtenAt < LIMIT_HINTS.publishEveryMs) continue;
      const stale = now - p.writtenAt >= LIMIT_HINTS.refreshMs;
      const moved =
        p.written === undefined ||
        p.limit >= p.written * LIMIT_HINTS.notableRatio ||
        p.limit * LIMIT_HINTS.notableRatio <= p.written;
      if (!moved && !stale) continue;
      if (stale) {
        const limit = current(host);
        if (limit === undefined) {
          this.#hosts.delete(host);
          if (p.written !== undefined) out.push({ host });
          continue;
        }
        p.limit = limit;
      }
      p.written = p.limit;
      p.writtenAt = now;
      out.push({ host, limit: p.limit });
    }
    return out;
  }
}
