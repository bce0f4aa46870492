/**
 * Limit hints: the per-host limits other daemons of a shared frontier found, so a host new to this daemon starts
 * near them (docs/control-plane.md, _Limit hints_). Pure rules; the entries live in a SharedMapStore.
 */

export const LIMIT_HINTS = Object.freeze({
  publishEveryMs: 1000,
  notableRatio: 1.25,
  refreshMs: 120_000,
  maxAgeMs: 600_000,
});

export interface HintEntry {
  readonly limit: number;
  readonly at: number;
}

export class HostLimitHints {
  readonly #hosts = new Map<string, Map<string, HintEntry>>();

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

  get size(): number {
    return this.#hosts.size;
  }

  /** Lower median of fresh entries: a hint should not push a host harder than the daemons on it found it takes. */
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

export interface HintWrite {
  readonly host: string;
  readonly limit?: number;
}

interface Published {
  limit: number;
  written: number | undefined;
  writtenAt: number;
}

/** Written once above initialLimit (a broad crawl's hosts write nothing), then on notable moves, and refreshed. */
export class LimitPublisher {
  readonly #hosts = new Map<string, Published>();

  changed(host: string, limit: number, initialLimit: number): void {
    const p = this.#hosts.get(host);
    if (p) p.limit = limit;
    else if (limit > initialLimit)
      this.#hosts.set(host, { limit, written: undefined, writtenAt: Number.NEGATIVE_INFINITY });
  }

  get size(): number {
    return this.#hosts.size;
  }

  /** `current(host)` undefined: forgotten here, its entry is removed. */
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
