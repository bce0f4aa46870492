import type { CrawlEmitter } from '../core/events.js';
import { LruMap } from '../core/lru-map.js';
import { TRAP_REASONS, type TrapReason } from '../core/traps/trap-options.js';

/** Hosts whose trap counts are kept for the status page (the busiest stay). */
const MAX_HOSTS = 1024;

export type TrapTally = Record<TrapReason, number>;

function emptyTally(): TrapTally {
  return Object.fromEntries(TRAP_REASONS.map((r) => [r, 0])) as TrapTally;
}

/**
 * URLs the trap rules kept from the crawl, in total and per host: the `--once` summary and the
 * status page read them (docs/traps.md).
 */
export class TrapCounts {
  readonly total: TrapTally = emptyTally();
  readonly #hosts = new LruMap<string, TrapTally>(MAX_HOSTS);

  constructor(events: CrawlEmitter) {
    events.on('trap', (e) => {
      const reason = e.reason as TrapReason;
      if (!(reason in this.total)) return;
      this.total[reason] += e.urls;
      let h = this.#hosts.get(e.host);
      if (h === undefined) {
        h = emptyTally();
        this.#hosts.set(e.host, h);
      }
      h[reason] += e.urls;
    });
  }

  /** Every URL counted, all reasons. */
  get sum(): number {
    return TRAP_REASONS.reduce((n, r) => n + this.total[r], 0);
  }

  /** The hosts with the most URLs kept out, most first. */
  top(max: number): { host: string; total: number; reasons: TrapTally }[] {
    const rows: { host: string; total: number; reasons: TrapTally }[] = [];
    for (const [host, reasons] of this.#hosts.entries()) {
      rows.push({ host, total: TRAP_REASONS.reduce((n, r) => n + reasons[r], 0), reasons });
    }
    rows.sort((a, b) => b.total - a.total || (a.host < b.host ? -1 : 1));
    return rows.slice(0, max);
  }
}

const WORDS: Record<TrapReason, string> = {
  session_id: 'session id',
  session_like: 'session-like parameter',
  repeated_path: 'repeated path',
  long_path: 'long path',
  near_duplicate_series: 'near-duplicate series',
  soft_404: 'soft 404',
};

/** `1,204 (session id 1,180, near-duplicate series 20, soft 404 4)`: the summary's words. */
export function describeTraps(t: TrapTally): string {
  const fmt = (n: number) => n.toLocaleString('en-US');
  const parts = TRAP_REASONS.filter((r) => t[r] > 0).map((r) => `${WORDS[r]} ${fmt(t[r])}`);
  const sum = TRAP_REASONS.reduce((n, r) => n + t[r], 0);
  return parts.length === 0 ? '0' : `${fmt(sum)} (${parts.join(', ')})`;
}
