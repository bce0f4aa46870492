import type { HostSnapshot } from '../ports/control-plane.js';
import type { StatusSource } from '../ports/status-source.js';
import { VERSION } from '../version.js';

/** How far back throughput and failure rate look: short enough to show a change at once. */
export const RATE_WINDOW_MS = 10_000;
/** Hosts shown on the page: the control plane may track thousands; a table of 50 stays readable. */
export const MAX_HOSTS = 50;

interface Sample {
  readonly at: number;
  readonly ok: number;
  readonly failed: number;
  readonly retried: number;
}

export interface WindowRates {
  /** Pages fetched successfully per second over the window (null until two samples exist). */
  readonly pagesPerSec: number | null;
  /** Dead-lettered pages per second over the window. */
  readonly failuresPerSec: number | null;
  /** Retries scheduled per second over the window. */
  readonly retriesPerSec: number | null;
  /** Retries count: a failing site shows at once, long before its pages become dead letters. */
  readonly failureRatio: number | null;
  readonly windowSeconds: number;
}

/** Sampled lazily, on each status request: a daemon with no page open does no work. */
export class RateSampler {
  readonly #samples: Sample[] = [];

  readonly #windowMs: number;

  constructor(windowMs = RATE_WINDOW_MS) {
    this.#windowMs = windowMs;
  }

  record(sample: Sample): WindowRates {
    const s = this.#samples;
    const last = s[s.length - 1];
    // Polls closer than 200 ms apart (several tabs) add nothing but memory.
    if (last === undefined || sample.at - last.at >= 200) s.push(sample);
    while (s.length > 2 && s[1]!.at <= sample.at - this.#windowMs) s.shift();
    const first = s[0]!;
    const seconds = (sample.at - first.at) / 1000;
    if (s.length < 2 || seconds <= 0) {
      return {
        pagesPerSec: null,
        failuresPerSec: null,
        retriesPerSec: null,
        failureRatio: null,
        windowSeconds: 0,
      };
    }
    const ok = sample.ok - first.ok;
    const failed = sample.failed - first.failed;
    const retried = sample.retried - first.retried;
    const attempts = ok + failed + retried;
    return {
      pagesPerSec: ok / seconds,
      failuresPerSec: failed / seconds,
      retriesPerSec: retried / seconds,
      failureRatio: attempts > 0 ? (failed + retried) / attempts : null,
      windowSeconds: seconds,
    };
  }
}

export interface HostRow {
  readonly host: string;
  readonly breaker: HostSnapshot['breaker'];
  readonly limit: number;
  readonly inflight: number;
  /** Epoch ms; only while the pause lasts. */
  readonly pausedUntil: number | null;
}

/** Troubled hosts first (open, half-open, paused), then the busiest: those are what one looks for. */
export function pickHosts(snapshots: Iterable<HostSnapshot>, now: number, max = MAX_HOSTS) {
  const rank = { open: 0, halfOpen: 1, closed: 2 } as const;
  const rows: HostRow[] = [];
  // Counted over every host, not only the rows shown: the summary must not hide the 51st.
  const count = { open: 0, halfOpen: 0, paused: 0 };
  for (const h of snapshots) {
    const paused = h.pausedUntil !== undefined && h.pausedUntil > now ? h.pausedUntil : null;
    rows.push({
      host: h.host,
      breaker: h.breaker,
      limit: h.limit,
      inflight: h.inflight,
      pausedUntil: paused,
    });
    if (h.breaker === 'open') count.open++;
    if (h.breaker === 'halfOpen') count.halfOpen++;
    if (paused !== null) count.paused++;
  }
  rows.sort(
    (a, b) =>
      rank[a.breaker] - rank[b.breaker] ||
      Number(b.pausedUntil !== null) - Number(a.pausedUntil !== null) ||
      b.inflight - a.inflight ||
      (a.host < b.host ? -1 : a.host > b.host ? 1 : 0),
  );
  return { total: rows.length, ...count, rows: rows.slice(0, max) };
}

/** One reading of a crawl that both JSON views start from. */
async function readCrawl(d: StatusSource, now: number) {
  const frontier = await d.frontier.stats();
  const head = {
    instance: d.instanceId,
    state: d.scheduler.state,
    ready: d.ready(),
    uptimeSeconds: (now - d.startedAt) / 1000,
  };
  return { frontier, c: d.scheduler.counters, head };
}

export async function collectStats(d: StatusSource, now: number) {
  const { frontier, c, head } = await readCrawl(d, now);
  return {
    ...head,
    pages: { ok: c.ok, retried: c.retry, failed: c.dead, skipped: c.skipped, deferred: c.deferred },
    inflight: d.scheduler.inflightCount,
    buffered: d.scheduler.bufferedCount,
    frontier,
  };
}

/** The JSON behind the status page (GET /api/status): everything it shows, in one request. */
export async function collectStatus(d: StatusSource, sampler: RateSampler, now: number) {
  const { frontier, c, head } = await readCrawl(d, now);
  const picked = pickHosts(d.control.hostSnapshots(), now);
  // The learned timeouts (ms) of the hosts shown; a phase still at its configured timeout is absent.
  const hosts = {
    ...picked,
    rows: picked.rows.map((r) => ({ ...r, timeouts: d.hostTimeouts?.(r.host) ?? {} })),
  };
  return {
    instance: head.instance,
    version: VERSION,
    state: head.state,
    ready: head.ready,
    now,
    startedAt: d.startedAt,
    uptimeSeconds: head.uptimeSeconds,
    totals: { ok: c.ok, failed: c.dead, retried: c.retry, skipped: c.skipped, deferred: c.deferred },
    rates: sampler.record({ at: now, ok: c.ok, failed: c.dead, retried: c.retry }),
    inflight: {
      now: d.control.inflight(),
      limit: d.control.globalLimit(),
      buffered: d.scheduler.bufferedCount,
    },
    queue: {
      pending: frontier.pending,
      delayed: frontier.delayed,
      leased: frontier.leased,
      done: frontier.done,
      dead: frontier.dead,
    },
    hosts: {
      total: hosts.total,
      open: hosts.open,
      halfOpen: hosts.halfOpen,
      paused: hosts.paused,
      shown: hosts.rows,
    },
    robots: { unreachable: d.robotsUnreachable().slice(0, MAX_HOSTS) },
    render: renderChoices(d),
    traps: { total: d.traps?.sum ?? 0, shown: d.traps?.top(MAX_HOSTS) ?? [] },
  };
}

/** How the hosts of `render: { kind: auto }` jobs are fetched: counts, and the first hosts. */
function renderChoices(d: StatusSource) {
  const count = { http: 0, browser: 0 };
  const shown: { job: string; host: string; decision: 'http' | 'browser' }[] = [];
  for (const [job, host, decision] of d.renderChoices?.() ?? []) {
    count[decision]++;
    if (shown.length < MAX_HOSTS) shown.push({ job, host, decision });
  }
  return { ...count, shown };
}

export type StatusJson = Awaited<ReturnType<typeof collectStatus>>;
